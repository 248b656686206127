import type { ReactNode } from 'react';

interface ErrorMessageProps {
  title: string;
  error: Error;
  /** A way out: Try again, Sign in… */
  children?: ReactNode;
}

export function ErrorMessage({ title, error, children }: ErrorMessageProps) {
  return (
    <div className="error-message" role="alert">
      <strong>{title}</strong>
      <p>{error.message}</p>
      {children}
    </div>
  );
}
