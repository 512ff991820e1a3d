/** A command's refusal or failure with the exit code it ends with: 2 when the user can fix the command, else 1. */
export class OperationError extends Error {
  readonly exitCode: number
  constructor(message: string, exitCode: number) {
    super(message)
    this.exitCode = exitCode
  }
}
