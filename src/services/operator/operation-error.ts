/**
 * A refusal or failure of an operator action, with the exit code the command line ends with: 2 when the user can
 * fix the request (the command), else 1. The command line's other errors are of this class too.
 */
export class OperationError extends Error {
  readonly exitCode: number
  constructor(message: string, exitCode: number) {
    super(message)
    this.exitCode = exitCode
  }
}
