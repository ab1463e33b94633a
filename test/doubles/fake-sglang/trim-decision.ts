// TEST DOUBLE (fake sglang): decides whether this fake serve behaves as if engy_trim were
// loaded, and which line it prints, the way the real module would: the module counts when
// --trim-hidden-states is given (the explicit switch) or when PYTHONPATH holds a folder with
// engy_trim/ (how the app really arms it); it arms only on a supported sglang version.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { formatTrimArmedLine, formatTrimInertLine, SUPPORTED_SGLANG_VERSIONS } from '../../../electron/engine/serve/trim-module.ts';

export interface TrimDecision {
  /** The line the module prints at start, or null when the module is not loaded at all. */
  line: string | null;
  active: boolean;
}

export function decideTrim(flag: boolean, sglangVersion: string, env: NodeJS.ProcessEnv): TrimDecision {
  const onPath = (env.PYTHONPATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'engy_trim', '__init__.py')));
  if (!flag && !onPath) return { line: null, active: false };
  if ((env.ENGY_TRIM_DISABLE ?? '') !== '' && env.ENGY_TRIM_DISABLE !== '0') {
    return { line: formatTrimInertLine(sglangVersion, 'disabled by ENGY_TRIM_DISABLE'), active: false };
  }
  if (!SUPPORTED_SGLANG_VERSIONS.includes(sglangVersion)) {
    return { line: formatTrimInertLine(sglangVersion, `version not in the supported list ${SUPPORTED_SGLANG_VERSIONS.join(', ')}`), active: false };
  }
  return { line: formatTrimArmedLine(sglangVersion), active: true };
}
