/** The hash of the Unleash SDKs (unleash-client's `murmurhash3js`), which ships no types; see murmurhash.unit.test.ts. */
declare module 'murmurhash3js' {
  const murmurhash3js: { x86: { hash32(key: string, seed?: number): number } }
  export default murmurhash3js
}
