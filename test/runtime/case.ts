/** One shared runtime case: a name and a function that throws (via ./assert.ts) when the behaviour breaks. */
export interface RuntimeCase {
  name: string;
  run: () => void | Promise<void>;
}
