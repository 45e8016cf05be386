import os from 'node:os';
import { DataDir } from '../archive/data-dir.ts';
import { SOURCE_IDS } from '../model/message.ts';
import { createAnonymizer } from '../privacy/anonymize.ts';
import { createRedactor } from '../privacy/redact.ts';
import type { ShareOptions } from '../privacy/share.ts';
import { homesIn } from '../privacy/share-mode.ts';
import { exportArchive, type ExportResult } from './export.ts';
import type { ExportFormat } from './tables.ts';

/** The redaction a `--share` export applies: this machine's home, user and host, and every other home the
 * archive's working directories mention (as `build --share`). */
async function shareOptionsFor(dataDir: string): Promise<ShareOptions> {
  const data = new DataDir(dataDir);
  const summaries = await data.readSummaries();
  const history = (await Promise.all(SOURCE_IDS.map((s) => data.readPrompts(s)))).flat();
  return {
    redactor: createRedactor(),
    anonymizer: createAnonymizer({
      home: os.homedir(),
      userName: os.userInfo().username,
      hostName: os.hostname(),
      extraHomes: homesIn([...summaries.map((s) => s.cwd), ...history.flatMap((p) => p.project ?? [])]),
    }),
  };
}

export async function runExport(options: {
  dataDir: string;
  outDir: string;
  format: ExportFormat;
  owner?: string;
  share?: boolean;
}): Promise<ExportResult> {
  return exportArchive({
    dataDir: options.dataDir,
    outDir: options.outDir,
    format: options.format,
    owner: options.owner ?? os.userInfo().username,
    share: options.share ? await shareOptionsFor(options.dataDir) : undefined,
  });
}
