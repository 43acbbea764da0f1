"""The job broker: runs as jobs on the journal's engine, claimed by workers under leases fenced by epochs."""
