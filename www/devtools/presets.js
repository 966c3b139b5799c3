// The page's preset traces: each is a whole trace (configuration, path, calls and their results) in
// the format of replay.js, so that a preset, an imported file and a shared URL are the same thing.
import { TRACE_FORMAT, TRACE_VERSION } from './replay.js';

/** LibreChat's configuration: its file tools are session tools, stateful sessions on. */
const DECLARED = {
  profile: '3.9',
  codeSessionToolNames: ['create_file', 'edit_file', 'read_file'],
  toolExecution: { sandbox: { statefulSessions: true } },
  eagerEventToolExecution: { excludeToolNames: ['create_file', 'edit_file'] },
};

const file = (id, name, storage, extra = {}) => ({ id, name, storage_session_id: storage, kind: 'user', ...extra });

const CREATE = {
  call: {
    id: 'call_create',
    name: 'create_file',
    args: { file_path: '/mnt/data/mandelbrot.py', content: "print('VERSION 1')\n" },
  },
  result: { status: 'success', artifact: { session_id: 'exec_A', files: [file('f_mandel_1', 'mandelbrot.py', 'exec_A')] } },
};
const LS = {
  call: { id: 'call_ls', name: 'bash_tool', args: { command: 'ls /mnt/data/' } },
  result: { status: 'success', artifact: { session_id: 'exec_A' } },
};

const trace = (title, config, steps, extra = {}) => ({
  format: TRACE_FORMAT,
  version: TRACE_VERSION,
  title,
  config,
  path: 'event',
  agents: {},
  ...extra,
  steps,
});

/** Every preset, by id, in the order the page lists them. */
export const PRESETS = {
  'seed-declared': trace('Seed: create_file, then bash_tool ls (create_file declared)', DECLARED, [CREATE, LS]),
  'seed-undeclared': trace(
    'Seed without the declaration (the bug: the file is not there)',
    { ...DECLARED, codeSessionToolNames: [] },
    [CREATE, LS],
  ),
  'edit-round': trace('An edit_file round: create, edit, run', DECLARED, [
    CREATE,
    {
      call: {
        id: 'call_edit',
        name: 'edit_file',
        args: { file_path: '/mnt/data/mandelbrot.py', old_text: 'VERSION 1', new_text: 'VERSION 2' },
      },
      result: {
        status: 'success',
        artifact: { session_id: 'exec_B', files: [file('f_mandel_2', 'mandelbrot.py', 'exec_B')] },
      },
    },
    {
      call: { id: 'call_run', name: 'bash_tool', args: { command: 'python3 /mnt/data/mandelbrot.py' } },
      result: { status: 'success', artifact: { session_id: 'exec_B' } },
    },
  ]),
  'skill-version': trace(
    'A skill file with a version, and one without',
    DECLARED,
    [
      {
        call: { id: 'call_skill', name: 'skill', args: { name: 'pptx' } },
        result: {
          status: 'success',
          artifact: {
            session_id: 'exec_S',
            files: [file('f_thumb', 'skills/pptx/scripts/thumbnail.py', 'store_skill', { kind: 'skill', resource_id: 'skill_pptx', version: 7 })],
          },
        },
      },
      {
        call: { id: 'call_py', name: 'execute_code', args: { lang: 'py', code: "print(open('/mnt/data/skills/pptx/SKILL.md').read())" } },
        result: { status: 'success', artifact: { session_id: 'exec_S' } },
      },
    ],
    {
      initialSessions: [
        [
          'execute_code',
          {
            session_id: 'exec_S',
            files: [
              file('f_skill_md', 'skills/pptx/SKILL.md', 'store_skill', { kind: 'skill', resource_id: 'skill_pptx', version: 7 }),
              file('f_notes', 'skills/pptx/NOTES.md', 'store_skill', { kind: 'skill', resource_id: 'skill_pptx' }),
            ],
          },
        ],
      ],
    },
  ),
  'inherited-echo': trace('An inherited echo: the sandbox lists every input file back', DECLARED, [
    CREATE,
    {
      call: { id: 'call_plot', name: 'execute_code', args: { lang: 'py', code: "open('/mnt/data/plot.png','wb').write(b'')" } },
      result: {
        status: 'success',
        artifact: {
          session_id: 'exec_C',
          files: [
            file('f_mandel_1', 'mandelbrot.py', 'exec_A', { inherited: true }),
            file('f_plot', 'plot.png', 'exec_C'),
          ],
        },
      },
    },
  ]),
  'two-partitions': trace(
    'Two agents, two partitions: one never sees the other\u2019s files',
    DECLARED,
    [
      { ...CREATE, agent: 'analyst' },
      {
        agent: 'writer',
        call: { id: 'call_draft', name: 'create_file', args: { file_path: '/mnt/data/draft.md', content: '# Draft' } },
        result: { status: 'success', artifact: { session_id: 'exec_W', files: [file('f_draft', 'draft.md', 'exec_W')] } },
      },
      { ...LS, agent: 'analyst' },
      { ...LS, call: { ...LS.call, id: 'call_ls_w' }, agent: 'writer', result: { status: 'success', artifact: { session_id: 'exec_W' } } },
    ],
    { agents: { analyst: {}, writer: { codeSessionKey: 'writer' } } },
  ),
  'profile-difference': trace(
    '3.6 vs 3.9: a deleted file (deleted_files) stays under 3.6',
    DECLARED,
    [
      CREATE,
      {
        call: { id: 'call_rm', name: 'bash_tool', args: { command: 'rm /mnt/data/mandelbrot.py' } },
        result: { status: 'success', artifact: { session_id: 'exec_A', files: [], deleted_files: ['mandelbrot.py'] } },
      },
      LS,
    ],
  ),
};

/** The preset the page opens with. */
export const DEFAULT_PRESET = 'seed-declared';
