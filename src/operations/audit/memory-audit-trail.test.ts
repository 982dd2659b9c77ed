import { runAuditTrailContract } from './audit-trail.contract.js';
import { MemoryAuditTrail } from './memory-audit-trail.js';

runAuditTrailContract(
  'MemoryAuditTrail',
  async () => {
    const lines: string[] = [];
    return { open: async () => new MemoryAuditTrail(lines), lines: async () => [...lines] };
  },
  { sharedWriters: true },
);
