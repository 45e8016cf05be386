import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { splitSessionKey } from '../model/ids.ts';
import { sessionRoute } from '../model/routes.ts';
import { OMIT_PARTS, type OmitPart } from '../privacy/share.ts';
import type { ShareSettings } from '../privacy/share-mode.ts';
import { shareSettingsFor as archiveShareSettings } from '../privacy/share-lens.ts';
import { buildSite } from './build-site.ts';
import { UsageError } from './options.ts';
import { resolveSessionKeys } from './session-ids.ts';

export function parseOmit(value: string | undefined): OmitPart[] {
  if (!value) return [];
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const part of parts) {
    if (!OMIT_PARTS.includes(part as OmitPart)) {
      throw new UsageError(`--omit takes ${OMIT_PARTS.join(', ')} (comma-separated), not "${part}"`);
    }
  }
  return parts as OmitPart[];
}

/** Share settings for this machine and archive (see shareSettingsFor in privacy/share-lens.ts). `sessions` may
 * name `<source>/<id>`, a bare id, or the start of either. */
export async function shareSettingsFor(
  dataDir: string,
  home: string,
  options: { sessions?: string[]; omit: OmitPart[]; single?: boolean },
): Promise<ShareSettings> {
  const sessions = options.sessions ? await resolveSessionKeys(dataDir, options.sessions) : undefined;
  return archiveShareSettings(dataDir, { home, sessions, omit: options.omit, single: options.single });
}

/**
 * One session as one self-contained HTML file: built as a single-page share site, then its stylesheet inlined.
 * The file makes no requests and runs no script.
 */
export async function shareToFile(options: {
  dataDir: string;
  key: string;
  outFile: string;
  timeZone: string;
  settings: ShareSettings;
}): Promise<{ bytes: number }> {
  const { source, sessionId } = splitSessionKey(options.settings.sessions![0]!);
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-share-'));
  try {
    await buildSite({ dataDir: options.dataDir, outDir: tmp, timeZone: options.timeZone, share: options.settings });
    let html = await fs.readFile(path.join(tmp, sessionRoute(source, sessionId, 1), 'index.html'), 'utf8');
    const links = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"[^>]*>/g)];
    for (const [tag, href] of links) {
      const css = await fs.readFile(path.join(tmp, href!.replace(/^\//, '')), 'utf8');
      html = html.replace(tag, () => `<style>${css.replace(/<\/style/gi, '<\\/style')}</style>`);
    }
    // Inline styles are the only thing this file needs; scripts, requests and frames stay forbidden.
    html = html.replace(
      /<meta http-equiv="Content-Security-Policy" content="[^"]*"/,
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"`,
    );
    await fs.mkdir(path.dirname(options.outFile), { recursive: true });
    await fs.writeFile(options.outFile, html);
    return { bytes: Buffer.byteLength(html) };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
