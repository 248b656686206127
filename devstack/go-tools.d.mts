// Types of go-tools.mjs (plain JavaScript so that ensure-deps can run it on any Node).

interface GoTool {
  readonly module: string;
  readonly version: string;
  readonly pathVariable: string;
}

export declare const goTools: {
  readonly temporal: GoTool;
  readonly 'stripe-mock': GoTool;
  readonly versitygw: GoTool;
};

export type GoToolName = keyof typeof goTools;

export declare function userCacheDir(env?: NodeJS.ProcessEnv): string;
export declare function cachedGoToolPath(name: GoToolName, cacheDir?: string): string;
export declare function isExecutable(path: string): boolean;
export declare function findOnPath(name: string, env?: NodeJS.ProcessEnv): string | undefined;
export declare const projectToolsDir: string;
export declare function installedGoTool(
  name: GoToolName,
  env?: NodeJS.ProcessEnv,
): string | undefined;
export declare function ensureGoTool(
  name: GoToolName,
  options: {
    go: string;
    cacheDir?: string;
    log?: (line: string) => void;
    pollMs?: number;
  },
): Promise<string>;
