/** The ServiceError a client's call fails with; any other outcome fails the test. */
import { isServiceError, type ServiceError } from '../../pipeline/clients/service-http.js';

export async function serviceFailure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  throw new Error('expected a ServiceError, got an answer');
}
