import { CopyButton } from './CopyButton';

/** A secret the API answers only once (a new token, a webhook signing secret), until dismissed. */
export function SecretOnce({
  secret,
  what,
  onDone,
}: {
  secret: string;
  /** What it is, in words: `token`, `signing secret`. */
  what: string;
  onDone: () => void;
}) {
  return (
    <div className="banner" role="status">
      <p>Copy the {what} now: it is not shown again.</p>
      <div className="secret-once">
        <code>{secret}</code>
        <CopyButton text={secret} label={`Copy ${what}`} />
      </div>
      <button type="button" className="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
