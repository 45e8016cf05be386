import os from 'node:os';
import { shareLens, shareSettingsFor } from '../privacy/share-lens.ts';
import { exportArchive, type ExportResult } from './export.ts';
import type { ExportFormat } from './tables.ts';

export async function runExport(options: {
  dataDir: string;
  outDir: string;
  format: ExportFormat;
  owner?: string;
  share?: boolean;
}): Promise<ExportResult> {
  // Shared, the rows are cleaned by the share lens of this machine and archive (the settings of `build --share`).
  const lens = options.share ? shareLens(await shareSettingsFor(options.dataDir, { home: os.homedir() })) : undefined;
  return exportArchive({
    dataDir: options.dataDir,
    outDir: options.outDir,
    format: options.format,
    owner: options.owner ?? os.userInfo().username,
    share: lens,
  });
}
