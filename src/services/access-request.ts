/** The credentials and dispensary token a request carried, whichever form carried them. */
export interface AccessRequest {
  readonly username: string;
  readonly password: string;
  readonly token: string;
  /**
   * The text the username and password arrived in together, when they did (an HTTP Basic header): the
   * answer remembered for a request is then keyed by it, so that a repeated request is answered without
   * `username` and `password` being read, and a form may decode them only when they are.
   */
  readonly sentAs?: string;
}
