import { z } from 'zod';

/** Request schemas that more than one /api/auth area parses with. */

/** `?id=`: admin/get-user and api-key/get. */
export const idQuery = z.object({ id: z.string() });

/** api-key/delete's body. */
export const keyIdBody = z.object({ keyId: z.string() });

/** The error page's `?error=` code; anything but one string shows as UNKNOWN. */
export const errorPageQuery = z.object({ error: z.string().optional().catch(undefined) });
