/** Who pays for a relayed call: a user, and the token it called with. */
export interface Payer {
  userId: number;
  /** 0 for the console's playground, which has no token: the user alone pays. */
  tokenId: number;
  /** The token has a balance of its own (not unlimited). */
  limitedToken: boolean;
}
