// The seed scenario: the bug behind the project. A file written by a host-declared tool (`create_file`)
// must be visible to the next `bash_tool` call, and an `edit_file` of it must be what the next run
// executes. Without `create_file` / `edit_file` in `codeSessionToolNames` the file is not there.

/** The gate configuration of a host that declares its file tools (as LibreChat's run.ts does). */
export const DECLARED = {
  profile: '3.9',
  codeSessionToolNames: ['create_file', 'edit_file', 'read_file'],
  toolExecution: { sandbox: { statefulSessions: true } },
  eagerEventToolExecution: { excludeToolNames: ['create_file', 'edit_file', 'execute_code', 'bash_tool'] },
};

/** The same host before the fix: its file tools are not session tools. */
export const UNDECLARED = { ...DECLARED, codeSessionToolNames: [] };

const MANDELBROT = `# A tiny ASCII Mandelbrot set
for y in range(-6, 7):
    row = ''
    for x in range(-20, 8):
        c, z = complex(x / 10, y / 6), 0
        for i in range(30):
            z = z * z + c
            if abs(z) > 2:
                break
        row += ' ' if abs(z) > 2 else '#'
    print(row)
print('VERSION 1')
`;

/** The four calls, one request each, as a model would make them. */
export const SEED_STEPS = [
  { id: 'call_create', name: 'create_file', args: { file_path: '/mnt/data/mandelbrot.py', content: MANDELBROT } },
  { id: 'call_ls', name: 'bash_tool', args: { command: 'ls /mnt/data/' } },
  {
    id: 'call_edit',
    name: 'edit_file',
    args: { file_path: '/mnt/data/mandelbrot.py', old_text: "print('VERSION 1')", new_text: "print('VERSION 2: edited')" },
  },
  { id: 'call_run', name: 'bash_tool', args: { command: 'python3 /mnt/data/mandelbrot.py' } },
];

/**
 * What the scenario's results show, from the per-call outcomes (`runBatch`'s results, one per step).
 * @param {Array<{ status: string, output?: { stdout: string, stderr: string } }>} outcomes
 */
export function judgeSeed(outcomes) {
  const [create, ls, edit, run] = outcomes;
  const listed = ls?.status === 'success' && /(^|\n)mandelbrot\.py(\n|$)/.test(ls.output?.stdout ?? '');
  const ranEdited = run?.status === 'success' && (run.output?.stdout ?? '').includes('VERSION 2: edited');
  const edited = edit?.status === 'success' && (edit.output?.stdout ?? '').startsWith('EDITED');
  return { created: create?.status === 'success', listed, edited, ranEdited };
}
