import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import type { ToolScope } from '../tool-scope.js';

/**
 * The scope a caller's calls run in, found from the caller alone. The port through which a skill
 * tool reaches its caller's `ToolScope`: the pipeline hands a backend only an `ExecutionContext`,
 * and its `caller` (identity, granted toolsets, the toolset the request narrowed to) is what
 * decides the scope — so a skill's steps reach exactly what the caller could reach with
 * `run_tool`, never more. app/ implements it with the rule the surfaces use to pick a scope.
 */
export type ScopeOfCaller = (caller: CallerContext) => ToolScope;
