import { Loaded, useResource } from './resource';

const units = ['B', 'KB', 'MB', 'GB'];

function fileSize(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1000 && unit < units.length - 1) {
    size /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? size : size.toFixed(1)} ${units[unit]}`;
}

/** The files the customer's benefits give, as download links (signed, short-lived URLs). */
export function Downloads() {
  const files = useResource(async (api) => (await api.downloadables()).items);
  return (
    <section aria-labelledby="downloads-title">
      <h2 id="downloads-title">Downloads</h2>
      <Loaded resource={files} what="your files">
        {(items) =>
          items.length === 0 ? (
            <p className="portal-empty">No files to download.</p>
          ) : (
            <ul className="portal-cards">
              {items.map(({ id, file }) => (
                <li key={id} className="portal-card portal-file">
                  <a href={file.download.url} download={file.name}>
                    {file.name}
                  </a>
                  <span className="muted">{fileSize(file.size)}</span>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}
