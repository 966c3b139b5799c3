// Generated from the Rust types of the answers (src/api/answers.rs) by tsify: do not edit.
// `CSG_WRITE_GENERATED=1 cargo test --lib registry` rewrites it.
import type { CodeEnvFile, EagerRuleId, FileChange, FileRef, GateVerdict, HintRuleId, KindRuleId, SdkProfile, SiteRuleId } from "./api.js";

/** `gate.explain(name, options)`. */
export interface GateExplanation {
  name: string;
  profile: SdkProfile;
  /** The partition the call reads and writes. */
  codeSessionKey: string;
  threadId: string | null;
  /** One of `CODE_EXECUTION_TOOLS`. */
  builtIn: boolean;
  /** In the gate's `codeSessionToolNames`. */
  declared: boolean;
  /** Every site, in the order of {@link verdictBits}. */
  sites: SiteExplanation[];
  eager: EagerExplanation;
  runtimeHint: HintExplanation;
}

/** One gate site's decision for a name. */
export interface SiteExplanation {
  /** The site as {@link GateVerdict} names it. */
  site: keyof GateVerdict;
  /** The SDK's name for it: `G1`…`G5`, `G7`, or `participatesInCodeSession`. */
  sdk: string;
  passes: boolean;
  rule: SiteRuleId;
  /** The rule in one sentence. */
  because: string;
}

/** G6: whether the stream layer would never prestart the call, and what it consulted. */
export interface EagerExplanation {
  site: "eagerExcluded";
  sdk: "G6";
  excluded: boolean;
  rule: EagerRuleId;
  /** The rule in one sentence. */
  because: string;
  excludeToolNames: string[];
  suppressedToolNames: string[];
  statefulSessions: boolean;
}

/** The runtime session hint a participant would carry (G1 `_runtime_session_hint`, G4). */
export interface HintExplanation {
  value: string | null;
  rule: HintRuleId;
  /** The rule in one sentence. */
  because: string;
}

/**
 * `explainInjectedFileRef(file, execSessionId)`: the narrowed file, and where each of its fields came
 * from.
 */
export interface NarrowingExplanation {
  /** Exactly what `toInjectedFileRef` returns. */
  file: CodeEnvFile;
  kind: KindExplanation;
  /** `own`: the file's; `fallback`: its `id`. */
  resourceId: "own" | "fallback";
  /** `own`: the file's (`""` counts); `fallback`: the exec session id. */
  storageSessionId: "own" | "fallback" | "missing";
  /** The file's keys the wire shape does not carry, in the file's order. */
  dropped: string[];
}

/** The rule that gave a narrowed file its kind. */
export interface KindExplanation {
  rule: KindRuleId;
  /** The rule in one sentence. */
  because: string;
}

/** `diffSessions(before, after)`. */
export interface SessionChanges {
  sessionId: ExecSessionMove;
  /** The files after the write with their fate, then the deleted ones. */
  files: SessionFileChange[];
}

/** The partition's exec session before and after a write. */
export interface ExecSessionMove {
  before: string | null;
  after: string | null;
}

/**
 * One file's fate in `diffSessions`: the file after the write (none when deleted), the one before (none
 * when added).
 */
export interface SessionFileChange {
  name: string;
  change: FileChange;
  file?: FileRef;
  previous?: FileRef;
}
