/** autocannon ships no types (and @types/autocannon is not a dependency): its API as the REST benchmark uses it. */
declare module 'autocannon' {
  const autocannon: (
    options: Record<string, any>,
    callback?: (error: Error | null, result: any) => void,
  ) => any;
  export default autocannon;
}
