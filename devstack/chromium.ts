import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { StartupError } from './supervisor.ts';

/** Where Debian's `chromium` package puts the browser the checkout page's browser test drives. */
export const chromiumPath = '/usr/bin/chromium';

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.on('error', () => resolve(127));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/**
 * Installs Debian's `chromium` with apt-get when it is missing (a fresh CI machine); needs
 * root. The package lists are refreshed only when the first attempt finds no candidate.
 */
export async function ensureChromium(say: (line: string) => void): Promise<void> {
  if (existsSync(chromiumPath)) return;
  if (process.getuid?.() !== 0) {
    throw new StartupError(
      `${chromiumPath} is missing and installing it needs root: apt-get install chromium`,
    );
  }
  say('Installing chromium (Debian package) for the browser test...');
  const install = ['install', '-y', '--no-install-recommends', 'chromium'];
  if ((await run('apt-get', install)) !== 0) {
    if ((await run('apt-get', ['update'])) !== 0 || (await run('apt-get', install)) !== 0) {
      throw new StartupError('apt-get could not install chromium');
    }
  }
  if (!existsSync(chromiumPath)) throw new StartupError(`chromium is not at ${chromiumPath}`);
}
