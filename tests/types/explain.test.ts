// Type tests of the explanations (compile-only, tsc --noEmit): gate.explain, explainInjectedFileRef
// and diffSessions answer typed data whose rule ids are closed unions.
import {
  Gate,
  diffSessions,
  explainInjectedFileRef,
  type EagerRuleId,
  type FileChange,
  type GateExplanation,
  type HintRuleId,
  type KindRuleId,
  type NarrowingExplanation,
  type SessionChanges,
  type SiteRuleId,
} from 'code-session-gate';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(): void;

const gate = new Gate({ codeSessionToolNames: ['create_file'] });
const e = gate.explain('create_file', { codeSessionKey: 'k', threadId: 't' });
expectType<Equal<typeof e, GateExplanation>>();
expectType<Equal<(typeof e.sites)[number]['rule'], SiteRuleId>>();
expectType<Equal<typeof e.eager.rule, EagerRuleId>>();
expectType<Equal<typeof e.eager.excluded, boolean>>();
expectType<Equal<typeof e.runtimeHint.rule, HintRuleId>>();
expectType<Equal<typeof e.runtimeHint.value, string | null>>();
// @ts-expect-error a rule id outside the union
const wrong: SiteRuleId = 'because_i_said_so';
void wrong;
// @ts-expect-error the name is a string
gate.explain(3);

const n = explainInjectedFileRef({ id: 'a', name: 'a.txt' }, 'exec');
expectType<Equal<typeof n, NarrowingExplanation>>();
expectType<Equal<typeof n.kind.rule, KindRuleId>>();
const kind: 'skill' | 'agent' | 'user' = n.file.kind;
void kind;

const d = diffSessions(null, { session_id: 'e', files: [] });
expectType<Equal<typeof d, SessionChanges>>();
expectType<Equal<(typeof d.files)[number]['change'], FileChange>>();
const fates: FileChange[] = ['added', 'kept', 'replaced', 'deleted'];
// @ts-expect-error not a fate
const moved: FileChange = 'moved';
void fates;
void moved;
