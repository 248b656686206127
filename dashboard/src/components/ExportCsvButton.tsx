import { useMutation } from '@tanstack/react-query';
import { downloadFile } from '../api/client';
import { ErrorMessage } from './ErrorMessage';

interface ExportCsvButtonProps {
  /** The export's API path (`/v1/orders/export`). */
  path: string;
  /** The name the downloaded file is saved under. */
  filename: string;
}

/** "Export CSV": downloads the whole export the API answers at `path`. */
export function ExportCsvButton({ path, filename }: ExportCsvButtonProps) {
  const download = useMutation({ mutationFn: () => downloadFile(path, filename) });
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={download.isPending}
        onClick={() => download.mutate()}
      >
        {download.isPending ? 'Exporting…' : 'Export CSV'}
      </button>
      {download.error && <ErrorMessage title="The export failed" error={download.error} />}
    </>
  );
}
