import { z } from 'zod';
import {
  issueToken,
  type TokenKind,
  tokenKinds,
  tokenLifetimes,
} from '../../accounts/verification-tokens.ts';
import type { User } from '../../db/entities/index.ts';
import { hashToken } from '../../domain/token-hashes.ts';
import * as templates from '../../integrations/mail/templates.ts';
import type { MailContent } from '../../integrations/mail/transport.ts';
import { sendEmail } from '../../processes/starters.ts';
import type { AppDependencies } from '../dependencies.ts';

/**
 * What an email-verification token stands for: user `userId` reads mail at `email`, and with
 * `updateTo`, asked to move the account to that address.
 */
export const emailVerificationSubject = z.object({
  userId: z.string(),
  email: z.string(),
  updateTo: z.string().optional(),
});

export type EmailVerificationSubject = z.infer<typeof emailVerificationSubject>;

/** Where /api/auth is reached from outside: the links in mails and Better Auth's `baseURL`. */
export function authBaseUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/auth`;
}

type Recipient = Pick<User, 'id' | 'email'>;

/**
 * The mails of /api/auth. Each issues a fresh token (only its hash is stored), builds the link
 * Better Auth would mail, and starts the sendEmail workflow; the workflow id comes from the
 * token's hash, so the same mail is never started twice and ids never reveal the token.
 */
export function authMails({ orm, temporal, config }: AppDependencies) {
  const baseUrl = authBaseUrl(config.api.publicUrl);
  const lifetimes = tokenLifetimes(config.auth.tokenLifetimes);
  const link = (path: string, query: Record<string, string>) =>
    `${baseUrl}${path}?${new URLSearchParams(query)}`;

  async function mailToken(
    kind: TokenKind,
    subject: string,
    to: string,
    content: (token: string) => MailContent,
  ): Promise<void> {
    const token = issueToken(orm.em, kind, subject, lifetimes[kind]);
    await orm.em.flush();
    const id = `${tokenKinds[kind].prefix}:${hashToken(token).slice(0, 32)}`;
    await sendEmail(temporal, { id, to, ...content(token) });
  }

  const verificationSubject = (subject: EmailVerificationSubject) => JSON.stringify(subject);

  return {
    /** Asks `user` to confirm their address; the link verifies it. */
    verifyEmail(user: Recipient, callbackURL?: string) {
      const subject = verificationSubject({ userId: user.id, email: user.email });
      return mailToken('emailVerification', subject, user.email, (token) =>
        templates.verifyEmail({
          url: link('/verify-email', { token, callbackURL: callbackURL || '/' }),
        }),
      );
    },

    /** Asks a verified user, at their current address, to confirm the move to `newEmail`. */
    confirmEmailChange(user: Recipient, newEmail: string, callbackURL?: string) {
      const subject = verificationSubject({
        userId: user.id,
        email: user.email,
        updateTo: newEmail,
      });
      return mailToken('emailVerification', subject, user.email, (token) =>
        templates.confirmEmailChange({
          newEmail,
          url: link('/verify-email', { token, callbackURL: callbackURL || '/' }),
        }),
      );
    },

    /** The reset link leads through GET /reset-password/{token} to `redirectTo`. */
    resetPassword(user: Recipient, redirectTo?: string) {
      return mailToken('passwordReset', user.id, user.email, (token) =>
        templates.resetPassword({
          url: link(`/reset-password/${token}`, { callbackURL: redirectTo ?? '' }),
        }),
      );
    },

    confirmAccountDeletion(user: Recipient, callbackURL?: string) {
      return mailToken('accountDeletion', user.id, user.email, (token) =>
        templates.confirmAccountDeletion({
          url: link('/delete-user/callback', { token, callbackURL: callbackURL || '/' }),
        }),
      );
    },
  };
}

export type AuthMails = ReturnType<typeof authMails>;
