import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { uploadFile } from '../products/upload';
import { benefitsApi, benefitsKey, type Downloadable } from './api';

interface FilesFieldProps {
  /** The ids of the files the benefit gives, in order. */
  files: string[];
  error: string | undefined;
  onChange: (files: string[]) => void;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The files a downloadables benefit gives: each chosen file is uploaded at once, then listed. */
export function FilesField({ files, error, onChange }: FilesFieldProps) {
  const [uploaded, setUploaded] = useState<Downloadable[]>([]);
  const [uploading, setUploading] = useState(0);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const known = useQuery({
    queryKey: [...benefitsKey, 'files', files],
    queryFn: ({ signal }) => benefitsApi.files(files, signal),
    enabled: files.length > 0,
  });
  const nameOf = (id: string) => {
    const file = [...uploaded, ...(known.data?.items ?? [])].find((one) => one.id === id);
    return file ? `${file.name} (${megabytes(file.size)})` : id;
  };

  const upload = async (chosen: File[]) => {
    setUploadError(null);
    setUploading(chosen.length);
    const added: Downloadable[] = [];
    try {
      for (const file of chosen) added.push(await uploadFile<Downloadable>(file, 'downloadable'));
    } catch (failure) {
      setUploadError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setUploading(0);
      setUploaded((before) => [...before, ...added]);
      if (added.length) onChange([...files, ...added.map((file) => file.id)]);
    }
  };

  const shownError = uploadError ?? error;
  return (
    <fieldset className="catalog-group" aria-describedby={shownError ? 'files-error' : undefined}>
      <legend>Files</legend>
      {shownError && (
        <p className="field-error" id="files-error" role="alert">
          {shownError}
        </p>
      )}
      {files.length === 0 && <p className="muted">No files yet: add at least one.</p>}
      {files.length > 0 && (
        <ul className="link-list">
          {files.map((id) => (
            <li key={id}>
              {nameOf(id)}{' '}
              <button
                type="button"
                className="button button-quiet"
                onClick={() => onChange(files.filter((other) => other !== id))}
              >
                Remove <span className="visually-hidden">{nameOf(id)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <label>
        {uploading ? `Uploading ${uploading} file(s)…` : 'Add files'}{' '}
        <input
          type="file"
          multiple
          disabled={uploading > 0}
          onChange={(event) => {
            const chosen = [...(event.target.files ?? [])];
            event.target.value = '';
            if (chosen.length) void upload(chosen);
          }}
        />
      </label>
    </fieldset>
  );
}
