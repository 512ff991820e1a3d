// Entry point: hands the arguments to the command line (src/cli/).
export { runCli } from './cli/program.ts'
