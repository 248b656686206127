/**
 * The buyer's customer session token from the confirm, kept for this browser tab only
 * (sessionStorage) so the confirmation page can read the granted benefits.
 */
const storageKey = (clientSecret: string) => `tollgate.checkout.${clientSecret}.session`;

export function rememberSessionToken(clientSecret: string, token: string) {
  try {
    sessionStorage.setItem(storageKey(clientSecret), token);
  } catch {
    // Storage may be disabled (private mode): the confirmation page then shows no benefits.
  }
}

export function sessionToken(clientSecret: string): string | null {
  try {
    return sessionStorage.getItem(storageKey(clientSecret));
  } catch {
    return null;
  }
}
