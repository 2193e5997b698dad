import { ParleyError } from '@parley/core';

/** 503 `instance_moving`: another node owns the instance, or it is between owners; a retry finds the owner. */
export class InstanceMovingError extends ParleyError {
  constructor(instance: string) {
    super(503, 'instance_moving', `instance ${instance} is owned by another cluster node or moving between nodes; retry`);
  }
}
