# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables are read by the scripts that source this file
# The one place the scripts read pinned tool versions and budgets from. Sourced by scripts/*.sh.
#
# Kept in step elsewhere (scripts/setup.sh fails loudly when they drift apart):
#   - crates/wasm/boundary/Cargo.toml pins `wasm-bindgen = "=$WASM_BINDGEN_VERSION"` (the CLI must match the crate exactly,
#     or wasm-bindgen refuses the module with a schema-version error);
#   - package.json pins the npm tools below with exact versions (package-lock.json records them).

# wasm-bindgen-cli (wasm-bindgen + wasm-bindgen-test-runner), from crates.io.
WASM_BINDGEN_VERSION=0.2.130
# wasm-pack, from crates.io (the npm `wasm-pack` downloads from GitHub, which fails here). Not used by
# the build; installed for developers who prefer `wasm-pack test`.
WASM_PACK_VERSION=0.15.1
# geckodriver, from crates.io (the npm package downloads from GitHub, which fails here): the conformance
# vectors in headless Firefox (Debian's firefox-esr) under `wasm-pack test --firefox`.
GECKODRIVER_VERSION=0.37.1
# npm devDependencies (exact versions in package.json).
BINARYEN_VERSION=132.0.0       # node_modules/.bin/wasm-opt; Debian's binaryen 108 cannot parse current output
TYPESCRIPT_VERSION=7.0.2       # tsc for the type tests of the shipped .d.ts
DENO_VERSION=2.9.6             # Deno smoke test of the package
WORKERD_VERSION=1.20261117.1   # workerd smoke test of the package
MITATA_VERSION=1.0.34          # bench/: the timer of the side-by-side benchmark
WRANGLER_VERSION=4.86.0        # worker: `wrangler deploy --dry-run` (the last 4.x that runs on Node 20)
PLAYWRIGHT_CORE_VERSION=1.65.1 # tests/devtools: drives Debian's /usr/bin/chromium (no browser download)
AXE_CORE_VERSION=4.14.1        # tests/devtools: the accessibility scan of the devtools page
ESBUILD_VERSION=0.28.2         # packages/assemble.mjs: bundles the CommonJS entry (node.cjs)

# Sizes of the two modules (after wasm-opt), checked by scripts/size-check.sh:
#   - the budgets, reported against: the core module (code_session_gate_bg.wasm, what every host loads)
#     <= 256 KiB / 96 KiB gzip (issue 20; the goal beyond it is 128 KiB / 48 KiB), and both modules
#     together no larger than the single module they replaced (545,041 bytes);
#   - the ceilings, a ratchet just above the last measured sizes, which fail the test command: a module
#     may shrink towards its budget, never grow back. Lower them as it shrinks. (History: one module
#     grew 244 KB -> 545 KB with the features; split in two at 543,959 / 224,631 bytes: core 377,814 /
#     163,500, sandbox 236,745 / 107,863; after review 377,809 / 163,450 and 236,816 / 107,112; with the
#   operation registry, the rules crate and the constants written at build time 377,418 / 162,966 and
#   236,413 / 107,078; the merge's touched positions without a sort 373,657 / 162,030; 373,665 / 162,013 and
#   236,421 / 107,153. Raised once, by issue 21: the forwarding path puts the sandbox dialects into the core
#   (gates live there) and reads answers and writes bodies with hand-written scanners and writers beside the
#   checked serde ones, 432,421 / 186,178 and 245,076 / 110,942; bench/README.md "Size" says what it takes back.
#   Issue 30: codeapi's run report and three refusal codes read from its answers, 434,865 / 187,152 and
#   247,446 / 112,553; the memory grown geometrically (crates/wasm/boundary/allocator.rs), 434,904 / 187,475. Raised by
#   issue 31, whose budget allows 10 %: the exports written by wasm-bindgen (a shim per operation, the
#   externref table, its malloc and free) in place of the hand-written channel, 440,904 / 187,801 (+1.4 % /
#   +0.2 %); the sandbox module lost its channel, 246,205 / 110,295; with every argument a JsValue (long
#   texts as bytes) 440,019 / 187,110 and 247,970 / 110,953. Raised by issue 32 (in progress), over its
#   "no module larger" budget by 9.3 KB / 3.8 KB: answers that echo their list folded in step, request
#   baselines mapped on first need, list diffs with a kept prefix and an id index, host artifacts read by
#   the scanner, 449,273 / 190,931 (the wire turn with 200 files 2.56 M -> 1.13 M instructions; the
#   scanner's and the body writer's own speed-ups came with no growth); the sandbox module 247,657 /
#   110,920. 2026-12-05, issue 31: one key policy for options (json::Opts) +1.5 KB, the flags answered in
#   JavaScript -1.0 KB, the session-field answers written by hand -2.1 KB raw (+0.1 KB gzip), 447,787 /
#   191,669; issue 32: echoes recalled by their text and refs sent as written before, 454,826 / 194,461
#   (the wire turn with 200 files 1.12 M -> 0.76 M instructions), the sandbox module 248,142 / 111,667 —
#   over issue 32's "no module larger" budget by 14.8 KB / 6.5 KB in all since that issue began.
#   2026-12-05, issue 32: host results read by the scanner on the event and foldResults paths, each plain
#   artifact read where it stands (the object turn with 200 files 0.93 M -> 0.66 M instructions), 458,542
#   / 196,438 (+4.0 KB / +1.9 KB), the sandbox module 248,278 / 111,678; one status rule for both
#   readers, 458,133 / 196,689. 2026-12-05 (next session), issue 32: completeEventBatch's options read in
#   one scanner pass, the results where they stand (the event object turn with 200 files 0.94 M -> 0.68 M
#   instructions), 460,277 / 197,872 (+2.1 KB / +1.2 KB). 2026-12-05 (third session of the day): answers
#   written by hand and allocations cut on the wire turn, 460,019 / 197,527; operations dispatched
#   through tables instead of one inlined match, 458,966 / 197,711 and the sandbox module 248,598 /
#   111,763 (+0.3 KB / +0.1 KB since the session began): the first call of an operation compiles that
#   operation only (cold start 25.3 -> 19.2 ms; the sandbox module's first call 9.5 -> 5.6 ms).
#   2026-12-06, issue 32: a stored file's extra keys one shared list (files/extra.rs) and the object
#   path's files read against the gate's memo of the last list (files/recall.rs ReadMemo): per stored
#   file 3.0 k -> 2.3 k instructions (wire) and 3.2 k -> 2.0 k (object); 462,494 / 199,323 (+3.5 KB /
#   +1.6 KB), the sandbox module 249,615 / 112,237 (+1.0 KB / +0.5 KB: it carries the files code too);
#   text compared and skipped a word at a time (json/lanes.rs), 462,367 / 199,450, the sandbox module
#   249,839 / 112,353; one word-at-a-time equality for stored text, 461,721 / 199,127, the sandbox
#   module 249,866 / 112,379. 2026-12-06 (second session), issue 32: Gate.forwardEventBatch (a batch
#   and its requests in one call, no context lists: the wire turn at 1 / 20 files 2.76 / 1.36x -> 1.92 /
#   0.95x the port), 464,965 / 201,566 (+3.2 KB / +2.4 KB); options that passed once not checked again
#   (-2.8 k instructions a forwarded turn), 465,109 / 201,637. 2026-12-07, issue 48 (the folders as
#   the stack: the allocator in the boundary crate, the operations at the root crate's top, a json
#   import circle broken, the wire's conventions in src/wire.rs): 465,175 / 201,701, the sandbox module
#   250,000 / 112,417 (+90 / +64 bytes, +134 / +38: code moved, not added). Raised by issue 48's second
#   pass, whose budget allows 2 %: one options type per operation read by one members reader, typed
#   registry parameters, the sandbox requests' options read through it (the forwarding path's in the
#   core), 469,204 / 204,948 (+4.0 KB / +3.2 KB, +0.9 % / +1.6 %); the sandbox module, its exec wire's
#   and sandbox answer's options moved onto the same reader, 249,338 / 112,353 (-0.7 KB / -0.1 KB).
#   Lowered by issue 49's fixed-cost steps (bench/README.md "The module's fixed cost": the options
#   readers' quiet field probe, then a batch's baselines and as-given contexts by generation in place
#   of two hash tables, whose code went with them): 466,014 / 203,478; the sandbox module 249,334 /
#   112,380 (-4 / +27 bytes). Raised by issue 48's fourth pass, whose budget allows 2 %: the exec
#   wire's factory params and tool call read by typed readers (json::read_spread) instead of trees,
#   its artifact written by its struct, the sandbox module 251,556 / 114,541 (+2.2 KB / +2.2 KB, +0.9 %
#   / +1.9 %); the core unchanged. Lowered again by the arguments crossing through one buffer in the
#   module's memory (bench/README.md "The module's fixed cost, continued": no JsValue turned into a
#   String per argument): core 465,340 / 203,040, the sandbox 250,998 / 114,331. Lowered by wasm-opt's
#   --merge-similar-functions (generic copies that differ only in constants folded into one body):
#   core 463,556 / 202,411, the sandbox 250,832 / 114,282. Lowered by issue 49's third session (texts
#   and vectors made at their size, a fold's outputs sharing the exec id: bench/README.md "The module's
#   fixed cost, third session"): core 463,330 / 202,357 as built here, where the same main built
#   463,566 / 202,424. Lowered by one hash-table code for every map and set (crates/rules/src/table.rs,
#   bench/README.md "One hash-table code"): core 445,898 / 196,648 alone, 445,837 / 196,697 with the
#   shapes' check in distinct_few, the sandbox unchanged.)
CORE_BUDGET_RAW=262144         # <= 256 KiB
CORE_BUDGET_GZIP=98304         # <= 96 KiB, gzip -9
CORE_CEILING_RAW=446000
CORE_CEILING_GZIP=196750
SANDBOX_CEILING_RAW=250900
SANDBOX_CEILING_GZIP=114350
MODULES_BUDGET_RAW=545041      # both modules together, raw
# ---------------------------------------------------------------------------------------------------
# The real sandbox servers' sources (scripts/sandboxes/: sources.sh, and the setups that extract them).
# One entry per source, its words in this order:
#   id       the tarball is <id>-<first 7 hex of the commit>.tar.gz, as shared/sandboxes names it
#   commit   the full commit of the public repository
#   file     SHA-256 of that tarball's bytes, the `git archive` in shared/sandboxes (the quick check)
#   tree     SHA-256 of its contents, whatever archive carries them (scripts/sandboxes/sources.sh
#            tree-hash FILE|DIR): what a download is held to. GitHub generates its own tarball of the
#            commit (another top folder, mtimes, compression), whose bytes are not ours and are not
#            promised to stay the same; the tree is. Both pins were computed from shared/sandboxes, the
#            tree pins also from `git archive` of each commit in the public repositories.
#   repos    where to download it: <SANDBOX_SOURCES_URL>/<owner>/<repo>/tar.gz/<commit>, first to last
# A new commit: its tarball (`git archive --prefix=<id>/ <commit> | gzip`), then both hashes of it here.
SANDBOX_SOURCE_PINS=(
  "codeapi 18bf002a0426366707f669b8c7f2b7bbfd8fcf06
     1262de26d0d87600cd4da711297d366a87799241cfef668a5a21f9fe40a603e9
     a1ebbdcab0dc11685844d93b0f9a2638dc49f3afb5b2c09c530919cf08a594b0
     ClickHouse/code-interpreter LibreChat-AI/code-interpreter"
  "nsjail 66ad78dc361721512fbf9470488e584364c75489
     d5059d7fef8a495ae08a8770494fac91af00c39edf611c7b032bec9ff58e5d1e
     fcda594adeeaab3fbb11aea01ea2907222d05bd43cd0c696470e8085e0cb562c
     google/nsjail"
  "kafel 76d0f41bf3eb5c4008713d64b9767b461a9129a3
     3c9071f884fbc2aadc66c2e01cd340f694980524b067841af445730eebceca08
     2011e447b51b65b35d742e11ba4a6f176a1f6ddc9a00d0f92543835d312e1e36
     google/kafel"
  "librecodeinterpreter 16474a491eb8b871f2e8232e7d3b6b3c71f8b965
     6a26143ad0a11b73551cf92a8619c5e9c4dab9653aefb0a4610ccfb9baef293a
     62461b578bb841f834e22844a40928de6dc1793a8319fab4ea0954c208c598b9
     usnavy13/LibreCodeInterpreter"
)
