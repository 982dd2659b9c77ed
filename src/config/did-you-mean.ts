/* "Did you mean" hints live in foundation/ (the MCP server entry schema in sources/ uses them too). */
export { closestKey, didYouMean } from '../foundation/util/did-you-mean.js';
