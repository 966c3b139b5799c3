// The exec directory that stands in for /mnt/data: writing inputs into it,
// and telling apart, after a run, what was echoed, changed, or created.
import { readdir, mkdir, writeFile, readFile } from 'node:fs/promises';
import { join, resolve, sep, dirname } from 'node:path';
import { sha256 } from './store.mjs';

/**
 * @template T
 * @typedef {object} Mounted
 * @property {string} sha256  hash of the bytes written at mount time
 * @property {T} ref          whatever the dialect needs to echo or link the input
 */

/**
 * @typedef {object} ScannedFile
 * @property {string} name    relative POSIX path inside the exec dir
 * @property {string} abs     absolute path
 * @property {string} sha256
 * @property {number} size
 */

/**
 * Resolve `name` inside `dir`, refusing anything that would land outside it.
 * @param {string} dir
 * @param {string} name
 * @returns {string}
 */
export function insideDir(dir, name) {
  const abs = resolve(dir, ...name.split('/'));
  if (abs !== dir && !abs.startsWith(dir + sep)) {
    throw new Error(`path escapes the exec directory: ${name}`);
  }
  return abs;
}

/**
 * Write one input file at `name` (creating parent directories).
 * @param {string} dir
 * @param {string} name
 * @param {Buffer} bytes
 */
export async function writeInto(dir, name, bytes) {
  const abs = insideDir(dir, name);
  // Throws (ENOTDIR / EISDIR) when a file and a directory compete for one
  // path, e.g. inputs "a" and "a/b": callers report that as a mount failure.
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, bytes);
}

/**
 * Every regular file under `dir`, skipping hidden entries (names starting
 * with "."), like both servers do. Symlinks are skipped: their targets are
 * outside the workspace by construction here.
 * @param {string} dir
 * @returns {Promise<ScannedFile[]>}
 */
export async function scanDir(dir) {
  /** @type {ScannedFile[]} */
  const out = [];
  /** @param {string} abs @param {string} rel */
  async function walk(abs, rel) {
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return; // removed mid-scan or unreadable: nothing to report
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const childAbs = join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        await walk(childAbs, childRel);
      } else if (entry.isFile()) {
        try {
          const bytes = await readFile(childAbs);
          out.push({ name: childRel, abs: childAbs, sha256: sha256(bytes), size: bytes.length });
        } catch {
          // unreadable (e.g. chmod 000 by the code): the real sandboxes would not collect it either
        }
      }
    }
  }
  await walk(dir, '');
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/**
 * Split the files found after a run into unchanged inputs, changed inputs,
 * and new files.
 * @template T
 * @param {ScannedFile[]} scanned
 * @param {Map<string, Mounted<T>>} mounted  by name
 * @returns {{ unchanged: Array<{ file: ScannedFile, input: Mounted<T> }>,
 *             changed: Array<{ file: ScannedFile, input: Mounted<T> }>,
 *             created: ScannedFile[] }}
 */
export function classify(scanned, mounted) {
  const unchanged = [];
  const changed = [];
  const created = [];
  for (const file of scanned) {
    const input = mounted.get(file.name);
    if (!input) created.push(file);
    else if (input.sha256 === file.sha256) unchanged.push({ file, input });
    else changed.push({ file, input });
  }
  return { unchanged, changed, created };
}
