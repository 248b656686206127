import { mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  cachedGoToolPath,
  ensureGoTool,
  findOnPath,
  type GoToolName,
  goTools,
  installedGoTool,
  isExecutable,
  projectToolsDir,
} from './go-tools.mjs';
import { StartupError } from './supervisor.ts';

export { type GoToolName, goTools, projectToolsDir };

/**
 * Finds a tool: the configured path, then `.tools/bin`, then PATH, then the user cache;
 * failing all of them, builds it with Go, or waits for the build another process (ensure-deps'
 * background build, another test file) has under way. Answers undefined when there is no Go.
 */
export async function locateGoTool(
  name: GoToolName,
  configuredPath: string | undefined,
  log: (line: string) => void,
): Promise<string | undefined> {
  const tool = goTools[name];
  if (configuredPath) {
    if (isExecutable(configuredPath)) return configuredPath;
    throw new StartupError(
      `${tool.pathVariable} must name an executable file (got ${configuredPath})`,
    );
  }
  const installed = installedGoTool(name);
  if (installed) return installed;

  let cached = cachedGoToolPath(name);
  if (!isExecutable(cached)) {
    const go = findOnPath('go');
    if (!go) return undefined;
    try {
      cached = await ensureGoTool(name, { go, log });
    } catch (error) {
      throw new StartupError(
        `${(error as Error).message}; or install ${name} yourself and set ${tool.pathVariable}`,
      );
    }
  }
  // Link under a private name and rename over, so processes linking at once do not collide.
  mkdirSync(projectToolsDir, { recursive: true });
  const linked = join(projectToolsDir, name);
  const scratch = `${linked}.${process.pid}`;
  rmSync(scratch, { force: true });
  symlinkSync(cached, scratch);
  renameSync(scratch, linked);
  return linked;
}
