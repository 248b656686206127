interface ErrorMessageProps {
  title: string;
  error: Error;
}

export function ErrorMessage({ title, error }: ErrorMessageProps) {
  return (
    <div className="error-message" role="alert">
      <strong>{title}</strong>
      <p>{error.message}</p>
    </div>
  );
}
