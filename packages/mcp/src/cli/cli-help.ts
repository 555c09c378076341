/**
 * The help texts of the `code-runtime` command: the overview (`code-runtime help`, or no
 * arguments at all) and one page per command (`code-runtime help run`, `code-runtime run --help`).
 * Each command's option lines come from the one table of options, so a page never lists an
 * option its command refuses.
 */
import { DEFAULT_SHARED_BACKEND_CONFIG } from '@code-runtime/core/internal'
import { DEFAULT_MAX_SDK_CHARS } from '../run/run-code-description.js'
import { DEFAULT_CATALOG_WAIT_MS } from '../server/catalog-readiness.js'

/** What `--type-check` takes, on two help lines aligned with the other options' texts. */
const TYPE_CHECK_LINE =
  'calls (default): refuse a program only for what would certainly fail;\n' +
  `${' '.repeat(25)}strict: for any type error; off: no check (serve, run, repl)`

/** Wall-clock limit of one run unless `--timeout-ms` says otherwise. */
export const DEFAULT_RUN_TIMEOUT_MS = 300_000

/** CPU limit of one run every backend uses unless `--compute-ms` says otherwise (their `computeMs`). */
export const DEFAULT_RUN_COMPUTE_MS = DEFAULT_SHARED_BACKEND_CONFIG.computeMs

/** The commands, in the order the overview lists them. */
export const COMMAND_NAMES = ['serve', 'run', 'repl', 'check', 'types', 'list', 'auth', 'runner', 'help'] as const
export type CommandName = (typeof COMMAND_NAMES)[number]

/** Options every command takes. */
export const GLOBAL_OPTIONS = ['help', 'version'] as const

/** Option name → its help line, without the leading indentation. */
const OPTION_LINES = {
  config: '-c, --config <file>    mcpServers JSON; without it, built-in example tools (tools.demo_*)',
  backend: '--backend <name>       container (default on Linux, where bubblewrap works), process or worker-thread',
  'timeout-ms': `--timeout-ms <ms>      wall-clock limit of one run (default ${DEFAULT_RUN_TIMEOUT_MS})`,
  'compute-ms': `--compute-ms <ms>      CPU-time limit of one run (default ${DEFAULT_RUN_COMPUTE_MS})`,
  'max-sdk-chars': `--max-sdk-chars <n>    largest SDK shown in run_code's description (default ${DEFAULT_MAX_SDK_CHARS})`,
  'list-wait-ms':
    `--list-wait-ms <ms>    longest tools/list waits for servers still connecting (default\n` +
    `${' '.repeat(25)}${DEFAULT_CATALOG_WAIT_MS}); later ones are added with tools/list_changed`,
  'type-check': `--type-check <mode>    ${TYPE_CHECK_LINE}`,
  'no-state':
    '--no-state             every run_code starts from nothing (by default variables persist\n' +
    `${' '.repeat(25)}between the calls of one client, and run_code takes reset: true)`,
  'approval-fallback':
    '--approval-fallback <decline|allow>\n' +
    `${' '.repeat(25)}what a call that needs approval gets when the client cannot ask a\n` +
    `${' '.repeat(25)}person (no elicitation, or protocol 2026-07-28); default decline`,
  yes:
    '-y, --yes              allow every call that needs approval without asking (otherwise a\n' +
    `${' '.repeat(25)}terminal asks y/n/a for each, and without a terminal they are declined)`,
  nats:
    '--nats <url>           NATS server(s), comma-separated: runs go to runners there (runner:\n' +
    `${' '.repeat(25)}takes runs from them); credentials from NATS_USER and NATS_PASS, NATS_TOKEN,\n` +
    `${' '.repeat(25)}--nats-creds or a client certificate: without any, --nats refuses to connect`,
  'nats-creds': '--nats-creds <file>    NKey/JWT credentials file for NATS (nsc generate creds)',
  'nats-ca': '--nats-ca <file>       CA certificate (PEM) to check the NATS server certificate against',
  'nats-cert': '--nats-cert <file>     client certificate (PEM) for NATS TLS, with --nats-key',
  'nats-key': '--nats-key <file>      its private key (PEM)',
  'nats-inbox-prefix':
    '--nats-inbox-prefix <p>\n' +
    `${' '.repeat(25)}first tokens of this side's NATS inboxes: _INBOX.<tenant> for a tenant's\n` +
    `${' '.repeat(25)}caller, whose user may read only those (docs/SCALING.md)`,
  'insecure-no-auth':
    '--insecure-no-auth     connect to NATS without credentials (any client on that bus can\n' +
    `${' '.repeat(25)}read programs and pose as a runner); with serve --http, listen beyond\n` +
    `${' '.repeat(25)}loopback without authentication; warned on every start`,
  concurrency: '--concurrency <n>      runs at once (default 4)',
  'max-runs-per-caller':
    '--max-runs-per-caller <n>\n' +
    `${' '.repeat(25)}runs at once for one caller identity (an inbox prefix: a tenant);\n` +
    `${' '.repeat(25)}default half of --concurrency, rounded up`,
  'max-backends':
    '--max-backends <n>     local backends kept at once, one per distinct set of caller budgets\n' +
    `${' '.repeat(25)}(default 4)`,
  'grace-ms':
    '--grace-ms <ms>        on SIGTERM, how long running programs may finish before they are\n' +
    `${' '.repeat(25)}aborted (default 10000; serve: with --http)`,
  http:
    '--http <[host:]port>   serve over Streamable HTTP at /mcp instead of stdio (loopback unless a\n' +
    `${' '.repeat(25)}host is given; port 0 picks a free one); prints "listening on <url>"`,
  'auth-issuer':
    '--auth-issuer <url>    accept the JWT access tokens of this OAuth issuer (its keys from its\n' +
    `${' '.repeat(25)}metadata, or --auth-jwks); with --auth-audience`,
  'auth-audience': "--auth-audience <uri>  this server's resource URI, which tokens must carry in aud",
  'auth-jwks': "--auth-jwks <url|file> the issuer's keys (JWKS), when its metadata does not name them",
  'auth-scope': '--auth-scope <scope>   scope a token must grant (403 otherwise)',
  'auth-keys':
    '--auth-keys <file>     accept the keys listed as "name sha256-hex-of-key" lines (mode 600);\n' +
    `${' '.repeat(25)}a client sends its key as the bearer token`,
  'audit-values':
    '--audit-values         the audit lines (one JSON line per run_code on stderr) carry each tool\n' +
    `${' '.repeat(25)}call's arguments and result`,
  'state-key':
    '--state-key <file>     the key (32 bytes or more, mode 600) that signs the state of runs paused\n' +
    `${' '.repeat(25)}for approval; every node behind one address needs the same (default:\n` +
    `${' '.repeat(25)}CODE_RUNTIME_STATE_KEY, else a random key: only this process resumes)`,
  'max-runs': '--max-runs <n>         runs at once, all callers together (default 32; then they queue)',
  'max-runs-per-principal':
    '--max-runs-per-principal <n>\n' + `${' '.repeat(25)}runs at once of one caller (default 4; then they queue)`,
  'no-browser':
    '--no-browser           print the login URL and read the address the browser was sent back to\n' +
    `${' '.repeat(25)}from stdin (works over SSH), instead of opening a browser`,
  'callback-port':
    '--callback-port <n>    the port of the loopback redirect URI the browser is sent back to (a\n' +
    `${' '.repeat(25)}client registered by hand needs its own); default the last login's, else any`,
  help: '-h, --help             this text',
  version: '-v, --version          the version',
} as const

export type OptionName = keyof typeof OPTION_LINES

interface CommandHelp {
  /** The command with its arguments, as the overview lists it. */
  readonly call: string
  readonly synopsis: string
  readonly summary: string
  readonly details: string
  readonly options: readonly OptionName[]
}

/** Each command: how it is called, one line for the overview, a paragraph for its own page. */
export const COMMAND_HELP: Readonly<Record<CommandName, CommandHelp>> = {
  serve: {
    call: 'serve',
    synopsis: 'code-runtime serve [--config servers.json] [options]',
    summary: 'MCP server over stdio (or HTTP): one run_code tool over every configured server',
    details:
      'stdout carries only the MCP protocol; logs go to stderr. Stops on SIGINT, SIGTERM or the end\nof stdin, closing every upstream server. Exits with 2 only when no configured server started.\nWith --http: Streamable HTTP at /mcp for many clients, each authenticated (--auth-keys, or\n--auth-issuer and --auth-audience) unless it listens on loopback only; one JSON audit line per\nrun_code on stderr. SIGTERM stops accepting, lets runs finish for --grace-ms, exits with 143.',
    options: [
      'config',
      'backend',
      'nats',
      'nats-creds',
      'nats-ca',
      'nats-cert',
      'nats-key',
      'nats-inbox-prefix',
      'insecure-no-auth',
      'timeout-ms',
      'compute-ms',
      'max-sdk-chars',
      'list-wait-ms',
      'type-check',
      'no-state',
      'approval-fallback',
      'http',
      'auth-issuer',
      'auth-audience',
      'auth-jwks',
      'auth-scope',
      'auth-keys',
      'audit-values',
      'state-key',
      'max-runs',
      'max-runs-per-principal',
      'grace-ms',
    ],
  },
  run: {
    call: 'run <program.ts>',
    synopsis: 'code-runtime run <program.ts> [--config servers.json] [options]',
    summary: 'run a program file; prints its logs, then its value or its failure',
    details:
      'The program is the body of an async function in TypeScript; it calls tools.<server>_<tool>(args).\nIt is type-checked first: a program the check refuses gets its errors on stderr, exit code 1, and\nno tool is called. Logs go to stdout as they come, then the value; a failure goes to stderr.\nA call that needs approval (a destructive tool, or one the config lists in "approve") asks on the\nterminal: y allows it, n declines it, a allows it and the rest of the run; --yes allows all.\nCtrl-C stops the run, closes the servers, prints "interrupted" and exits with 130.',
    options: [
      'config',
      'backend',
      'nats',
      'nats-creds',
      'nats-ca',
      'nats-cert',
      'nats-key',
      'nats-inbox-prefix',
      'insecure-no-auth',
      'timeout-ms',
      'compute-ms',
      'type-check',
      'yes',
    ],
  },
  repl: {
    call: 'repl',
    synopsis: 'code-runtime repl [--config servers.json] [options]',
    summary: 'a prompt over the configured servers whose variables persist',
    details:
      'Each input is a program, run in one session: its top-level declarations stay for the next, and\n' +
      'the value of a last expression is printed. An unfinished input (an open bracket, template or\n' +
      'comment) continues on a "... " line. Logs print as they come; failures print with their kind.\n' +
      'Commands: .help, .reset (forget every variable), .exit (or Ctrl-D). Ctrl-C stops a running\n' +
      'program (the variables stay), clears an unfinished input, and exits when pressed twice at an\n' +
      'empty prompt. History is kept in $CODE_RUNTIME_REPL_HISTORY, else in the state directory\n' +
      '($XDG_STATE_HOME or ~/.local/state)/code-runtime/repl_history.\n' +
      'A call that needs approval asks as run does (y, n, a); --yes allows all.',
    options: [
      'config',
      'backend',
      'nats',
      'nats-creds',
      'nats-ca',
      'nats-cert',
      'nats-key',
      'nats-inbox-prefix',
      'insecure-no-auth',
      'timeout-ms',
      'compute-ms',
      'type-check',
      'yes',
    ],
  },
  check: {
    call: 'check <program.ts>',
    synopsis: 'code-runtime check <program.ts> [--config servers.json] [--type-check calls|strict]',
    summary: 'type-check a program file against the SDK without running it',
    details:
      'Prints each diagnostic as file:line:col, the offending text and what TypeScript suggests; errors\nrefuse the program, hints are shown when a run fails. Exits with 1 when run would refuse it, or\nwhen the check cannot finish (a program that overflows the compiler).',
    options: ['config', 'type-check'],
  },
  types: {
    call: 'types',
    synopsis: 'code-runtime types [--config servers.json]',
    summary: 'print the TypeScript SDK programs are written against',
    details: 'Prints declarations (valid TypeScript, ready for a .d.ts) of every configured tool.',
    options: ['config'],
  },
  list: {
    call: 'list',
    synopsis: 'code-runtime list [--config servers.json] [--max-sdk-chars <n>]',
    summary: 'print the servers, their tools and the size of the SDK',
    details: 'Prints each server, the member name and upstream name of each tool, and the SDK size.',
    options: ['config', 'max-sdk-chars'],
  },
  auth: {
    call: 'auth login|status|logout',
    synopsis:
      'code-runtime auth login <server>... [--config servers.json] [--no-browser] [--callback-port <n>]\n' +
      '       code-runtime auth status [server] [--config servers.json]\n' +
      '       code-runtime auth logout <server> [--config servers.json]',
    summary: 'log in to the remote (url) servers of the config that need OAuth, and out again',
    details:
      'login asks the server, learns its authorization server from its 401, and opens the browser (or,\n' +
      'with --no-browser, prints the URL and reads the redirect pasted on stdin); it gives up after 3\n' +
      'attempts; several servers are logged in to one after the other. Logins running at once share\n' +
      'one callback port: the first listens for all and routes each redirect by its state. serve,\n' +
      'run, repl, list, types and check then use and refresh the login by themselves.\n' +
      'Logins are kept in $XDG_CONFIG_HOME/code-runtime/oauth (else ~/.config/code-runtime/oauth), a\n' +
      'directory of mode 700 with files of mode 600, refused when others may read it. status lists\n' +
      'the url servers and whether each has a login; logout removes the logins of one server. Each\n' +
      'needs --config: the servers are the url servers it lists.',
    options: ['config', 'no-browser', 'callback-port'],
  },
  runner: {
    call: 'runner --nats <url>',
    synopsis: 'code-runtime runner --nats <url> [--backend container|process|worker-thread] [--concurrency <n>]',
    summary: 'take runs from NATS for callers elsewhere (@code-runtime/nats), on a local backend',
    details:
      "Takes runs only while it has a free slot, runs each on the local backend with the caller's\n" +
      'budgets, and sends each binding call back to its caller. SIGTERM or SIGINT drains it: it takes\n' +
      'no new runs, lets running ones finish for --grace-ms, aborts the rest and exits with 0. Every\n' +
      'runner answers requests on <prefix>.load with its load. Logs go to stderr.',
    options: [
      'nats',
      'nats-creds',
      'nats-ca',
      'nats-cert',
      'nats-key',
      'nats-inbox-prefix',
      'insecure-no-auth',
      'backend',
      'concurrency',
      'max-runs-per-caller',
      'max-backends',
      'grace-ms',
    ],
  },
  help: {
    call: 'help [command]',
    synopsis: 'code-runtime help [command]',
    summary: 'this overview, or the options of one command',
    details: 'Prints the overview, or the page of one command (the same as code-runtime <command> --help).',
    options: [],
  },
}

const EXIT_CODES =
  'Exit codes: 0 success, 1 the program failed or its type check refused it, 2 bad usage, bad\nconfig or a server that cannot start, 130 interrupted (Ctrl-C).'

function optionLines(options: readonly OptionName[]): string {
  return options.map(option => `  ${OPTION_LINES[option]}`).join('\n')
}

/** The overview: every command and the options every command takes. */
export function overviewText(): string {
  const width = Math.max(...COMMAND_NAMES.map(name => COMMAND_HELP[name].call.length))
  return [
    'Usage: code-runtime <command> [options]',
    '',
    'Commands:',
    ...COMMAND_NAMES.map(name => `  ${COMMAND_HELP[name].call.padEnd(width)}  ${COMMAND_HELP[name].summary}`),
    '',
    'Options of every command:',
    optionLines(GLOBAL_OPTIONS),
    '',
    'Run code-runtime help <command> (or code-runtime <command> --help) for its options.',
    EXIT_CODES,
  ].join('\n')
}

/** The page of one command: synopsis, what it does, its options. */
export function commandHelpText(name: CommandName): string {
  const help = COMMAND_HELP[name]
  return [
    `Usage: ${help.synopsis}`,
    '',
    `${help.summary[0]?.toUpperCase() ?? ''}${help.summary.slice(1)}.`,
    help.details,
    '',
    'Options:',
    optionLines([...help.options, ...GLOBAL_OPTIONS]),
    '',
    EXIT_CODES,
  ].join('\n')
}
