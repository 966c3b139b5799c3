// The seeded session map the refusal tests start from: a partition with a user and a skill file, and
// an empty one of another agent.
import { Gate } from '../../pkg/node.js';

export const SEED = Object.freeze([
  [
    'execute_code',
    {
      session_id: 'e0',
      files: [
        { id: 'a1', name: 'a.txt', storage_session_id: 'e0' },
        { id: 's1', name: 'skills/x/SKILL.md', storage_session_id: 'k0', kind: 'skill', version: 3, resource_id: 'sk' },
      ],
      lastUpdated: 1,
    },
  ],
  ['agent-b', { session_id: 'p0', files: [], lastUpdated: 2 }],
]);

/** A gate on a fresh copy of SEED with `create_file` declared; `config` adds or overrides keys. */
export const freshGate = (config = {}) => new Gate({ sessions: structuredClone(SEED), codeSessionToolNames: ['create_file'], ...config });
