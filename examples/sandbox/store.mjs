// Object storage standing in for the servers' S3/MinIO bucket plus the Redis
// keys that guard it. Bytes live on disk under <root>/<storage_session_id>/<id>;
// metadata (owner sessionKey, names, hashes) lives in memory, because the
// sandbox is a per-test or per-demo process and never needs to outlive it.
import { createHash } from 'node:crypto';
import { mkdir, writeFile, copyFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from './ids.mjs';

/**
 * @typedef {object} FileRecord
 * @property {string} id            storage file id
 * @property {string} sessionId     storage session the bytes live under
 * @property {string} name          relative POSIX path the file had when stored
 * @property {number} size
 * @property {string} sha256
 * @property {string} mime
 * @property {string|null} uploadKey  codeapi sessionKey the object was registered under
 * @property {boolean} readOnly
 * @property {Date} lastModified
 */

/**
 * @typedef {object} StorageSession
 * @property {string} id
 * @property {string|null} owner   codeapi `session:<id>` value (a sessionKey)
 * @property {Map<string, FileRecord>} files
 * @property {Date} createdAt
 */

/**
 * @param {Buffer} bytes
 * @returns {string}
 */
export function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

export class ObjectStore {
  /**
   * @param {string} root
   * @param {{ ttlMs?: number }} [options] how long a storage session lives (both real servers drop a
   *   session's files after about a day); by default forever
   */
  constructor(root, { ttlMs } = {}) {
    this.root = root;
    this.ttlMs = ttlMs;
    /** @type {Map<string, StorageSession>} */
    this.sessions = new Map();
  }

  /**
   * Drops storage session `sid` (every one when omitted) as the real servers do when it expires: its
   * files and its owner are gone, so a read is refused (codeapi: 403; LibreCodeInterpreter: 404) and an
   * exec naming its files runs without them (LibreCodeInterpreter) or is refused (codeapi).
   * @param {string} [sid]
   * @returns {number} how many sessions were dropped
   */
  expire(sid) {
    const ids = sid === undefined ? [...this.sessions.keys()] : this.sessions.has(sid) ? [sid] : [];
    for (const id of ids) {
      this.sessions.delete(id);
      rm(join(this.root, id), { recursive: true, force: true }).catch(() => {});
    }
    return ids.length;
  }

  /** Removes one object (codeapi's DELETE /files/:session/:file). @param {FileRecord} record */
  remove(record) {
    this.sessions.get(record.sessionId)?.files.delete(record.id);
    rm(this.pathOf(record), { force: true }).catch(() => {});
  }

  /** The session, unless its lifetime has passed (then it is dropped now). @param {string} sid */
  live(sid) {
    const session = this.sessions.get(sid);
    if (session && this.ttlMs !== undefined && Date.now() - session.createdAt.getTime() > this.ttlMs) {
      this.expire(sid);
      return undefined;
    }
    return session;
  }

  /**
   * @param {string} sid
   * @returns {StorageSession}
   */
  ensureSession(sid) {
    let session = this.live(sid);
    if (!session) {
      session = { id: sid, owner: null, files: new Map(), createdAt: new Date() };
      this.sessions.set(sid, session);
    }
    return session;
  }

  /**
   * @param {string} sid
   * @param {string} owner
   */
  setOwner(sid, owner) {
    this.ensureSession(sid).owner = owner;
  }

  /**
   * @param {string} sid
   * @returns {string|null}
   */
  owner(sid) {
    return this.live(sid)?.owner ?? null;
  }

  /**
   * @param {string} sid
   * @param {string} fid
   * @returns {FileRecord|undefined}
   */
  get(sid, fid) {
    return this.live(sid)?.files.get(fid);
  }

  /**
   * @param {string} sid
   * @returns {FileRecord[]}
   */
  list(sid) {
    return [...(this.live(sid)?.files.values() ?? [])];
  }

  /**
   * @param {FileRecord} record
   * @returns {string}
   */
  pathOf(record) {
    return join(this.root, record.sessionId, record.id);
  }

  /**
   * @param {FileRecord} record
   * @returns {Promise<Buffer>}
   */
  read(record) {
    return readFile(this.pathOf(record));
  }

  /**
   * Store bytes (or copy a file) as a new object with a fresh id.
   * @param {string} sid
   * @param {{ name: string, bytes?: Buffer, fromPath?: string, sha256?: string, size?: number,
   *           mime?: string, uploadKey?: string|null, readOnly?: boolean }} input
   * @returns {Promise<FileRecord>}
   */
  async put(sid, input) {
    const session = this.ensureSession(sid);
    /** @type {FileRecord} */
    const record = {
      id: newId(),
      sessionId: sid,
      name: input.name,
      size: 0,
      sha256: '',
      mime: input.mime || 'application/octet-stream',
      uploadKey: input.uploadKey ?? null,
      readOnly: Boolean(input.readOnly),
      lastModified: new Date(),
    };
    await mkdir(join(this.root, sid), { recursive: true });
    if (input.bytes) {
      await writeFile(this.pathOf(record), input.bytes);
      record.size = input.bytes.length;
      record.sha256 = sha256(input.bytes);
    } else if (input.fromPath) {
      await copyFile(input.fromPath, this.pathOf(record));
      const bytes = await readFile(this.pathOf(record));
      record.size = bytes.length;
      record.sha256 = input.sha256 ?? sha256(bytes);
    } else {
      throw new Error('put needs bytes or fromPath');
    }
    session.files.set(record.id, record);
    return record;
  }
}
