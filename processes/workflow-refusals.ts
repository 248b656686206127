import { type CommerceErrorName, commerceError } from '../commerce/errors.ts';
import { refusalFailure } from './activity-errors.ts';

/**
 * A workflow's own refusal of an update (its validator, or its handler before any activity):
 * the failure that carries the commerce API's error back to the route that sent the update.
 * Bundled into workflow code: this module and what it imports stay free of I/O.
 */
export function commerceRefusal(name: CommerceErrorName) {
  return refusalFailure(commerceError(name));
}
