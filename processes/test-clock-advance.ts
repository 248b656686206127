/** A clock's move to `frozenTime` (ISO): the input of its advance workflow. */
export interface TestClockAdvance {
  testClockId: string;
  frozenTime: string;
}
