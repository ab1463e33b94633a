import { join } from 'node:path';
import type { CliIo } from './types.ts';

import { dataPaths, defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { minerModel } from '../engine/lib/model-catalog.ts';
import { checkCheckpointFolder, checkpointIdentity, defaultCheckpointDir } from '../engine/serve/checkpoint/checkpoint-folder.ts';
import { downloadFromHub } from '../engine/serve/checkpoint/hub-download.ts';
import { hubLocation } from '../engine/serve/checkpoint/hub-files.ts';

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;

/** `serve checkpoint [--dir D] [--download] [--json]`: state, identity beside the published root. */
export interface CheckpointFlags {
  'data-dir'?: string;
  dir?: string;
  download?: boolean;
  revision?: string;
  json?: boolean;
}

export async function runCheckpointCommand(p: CheckpointFlags, io: CliIo): Promise<number> {
  const dataDir = p['data-dir'] ?? defaultHeadlessDataDir(io.env);
  const model = minerModel();
  const dir = p.dir ?? defaultCheckpointDir(dataPaths(dataDir).checkpoints, model.checkpoint);
  if (p.download) {
    let last = 0;
    await downloadFromHub({
      location: hubLocation(model.checkpoint, io.env, p.revision ?? 'main'),
      dir,
      onProgress: (pr) => {
        const now = Date.now();
        if (now - last < 2000 && pr.bytesDone < pr.bytesTotal) return;
        last = now;
        const eta = pr.etaS === null ? '?' : `${Math.round(pr.etaS / 60)} min`;
        io.stderr(
          `${gib(pr.bytesDone)} / ${gib(pr.bytesTotal)}  ${(pr.rateBps / 1024 ** 2).toFixed(1)} MiB/s  ETA ${eta}  files ${pr.filesDone}/${pr.filesTotal}${pr.currentFile ? `  ${pr.currentFile}` : ''}\n`,
        );
      },
    });
  }
  const check = checkCheckpointFolder(dir);
  const identity = check.complete ? await checkpointIdentity(dir) : null;
  const out = { repo: model.checkpoint, dir, complete: check.complete, problems: check.problems, identity, publishedRoot: model.modelRoot };
  if (p.json) io.stdout(JSON.stringify(out, null, 2) + '\n');
  else {
    io.stdout(
      [
        `checkpoint: ${model.checkpoint}`,
        `folder:     ${dir}`,
        `state:      ${check.complete ? 'complete' : 'incomplete'}`,
        ...check.problems.slice(0, 20).map((x) => `  ${x}`),
        `identity (model_root sent to the gateway): ${identity ?? '-'}`,
        `published Merkle root (catalog, a different and stronger commitment): ${model.modelRoot}`,
        check.complete ? '' : `download it with: engy-panel serve checkpoint --download${p.dir ? ` --dir ${join(dir)}` : ''}`,
        '',
      ].join('\n'),
    );
  }
  return check.complete ? 0 : 1;
}
