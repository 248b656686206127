import { useState } from 'react';
import { Field } from '../../components/Form';
import type { ProductMedia } from './api';
import { mediaMaxBytes, mediaMimeTypes, uploadProductMedia } from './upload';

interface MediaFieldProps {
  medias: ProductMedia[];
  /** The API's refusal of `medias` (or of one of them). */
  error: string | undefined;
  onChange: (medias: ProductMedia[]) => void;
}

/** The product's images: each chosen file is uploaded at once, then listed for the save. */
export function MediaField({ medias, error, onChange }: MediaFieldProps) {
  const [uploading, setUploading] = useState(0);
  const [uploadError, setUploadError] = useState<string | null>(null);

  const upload = async (files: File[]) => {
    setUploadError(null);
    const refused = files.find(
      (file) => !mediaMimeTypes.includes(file.type) || file.size > mediaMaxBytes,
    );
    if (refused) {
      setUploadError(`${refused.name}: only JPEG, PNG, GIF, WebP or SVG images up to 10 MB.`);
      return;
    }
    setUploading(files.length);
    const added: ProductMedia[] = [];
    try {
      for (const file of files) added.push(await uploadProductMedia(file));
    } catch (failure) {
      setUploadError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setUploading(0);
      if (added.length) onChange([...medias, ...added]);
    }
  };

  return (
    <Field
      name="medias"
      label="Images"
      hint={
        uploading
          ? `Uploading ${uploading} image(s)…`
          : 'JPEG, PNG, GIF, WebP or SVG, up to 10 MB each.'
      }
      error={uploadError ?? error}
    >
      {(props) => (
        <div className="form-group">
          {medias.length > 0 && (
            <ul className="media-gallery">
              {medias.map((media) => (
                <li key={media.id}>
                  <img src={media.public_url} alt={media.name} />
                  <button
                    type="button"
                    className="button button-quiet"
                    onClick={() => onChange(medias.filter((other) => other.id !== media.id))}
                  >
                    Remove <span className="visually-hidden">{media.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <input
            {...props}
            type="file"
            accept={mediaMimeTypes.join(',')}
            multiple
            disabled={uploading > 0}
            onChange={(event) => {
              const files = [...(event.target.files ?? [])];
              event.target.value = '';
              if (files.length) void upload(files);
            }}
          />
        </div>
      )}
    </Field>
  );
}
