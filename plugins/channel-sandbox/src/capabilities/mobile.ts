import { randomInt } from 'node:crypto';
import { ConflictError, NotFoundError, ParleyError, ValidationError, type MobileRegistrationCapability } from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';
import type { SandboxConnection } from './connection.js';

/** State document of the phone's registration in progress. */
const REGISTRATION = 'mobile-registration';
/** Digits of a registration code. */
const CODE_LENGTH = 6;
/** Wrong codes a code takes before it is void (a new one must be requested). */
export const MOBILE_VERIFY_ATTEMPTS = 3;

/** A registration code the network sent to the phone. */
interface IssuedCode {
  /** The digits, without the hyphen. */
  value: string;
  method: 'sms' | 'voice';
  /** Epoch ms. */
  expiresAt: number;
  attemptsLeft: number;
}

/** A registration between `prepare` and a successful `verify`, kept in the phone's state (it survives restarts). */
interface Registration {
  /** The number being registered: digits with country code. */
  number: string;
  /** Epoch ms of the last code request: the next one may come `mobileCodeIntervalMs` later. */
  lastRequestAt?: number;
  code?: IssuedCode;
}

/** The code waiting on the simulated phone, as the sandbox's `mobile-code` route shows it. */
export interface WaitingCode {
  /** `123-456`, as the phone shows it. */
  code: string;
  method: 'sms' | 'voice';
  /** ISO 8601. */
  expiresAt: string;
  attemptsLeft: number;
}

/**
 * Three-step mobile registration of a sandbox phone (spec 4.1 `mobile/*`), with its state in
 * storage: `prepare` names the number (it must be this instance's number), `requestCode` has the
 * network send a 6-digit code by SMS or voice call (at most one every `mobileCodeIntervalMs`; it
 * expires after `mobileCodeTtlMs`), which the simulated phone shows through `GET
 * /sandbox/{key}/mobile-code`, and `verify` with the right code links the phone and connects the
 * instance as that number. A code takes {@link MOBILE_VERIFY_ATTEMPTS} wrong tries before it is void.
 * Every step refuses a connected instance and a step out of order, changing nothing.
 */
export class SandboxMobile implements MobileRegistrationCapability {
  constructor(
    private readonly device: SandboxDevice,
    private readonly connection: SandboxConnection,
  ) {}

  prepare(input: { phoneNumberCountryCode: string; phoneNumberNationalNumber: string; phoneNumberMobileNetworkCode: string }): Promise<void> {
    return this.device.exclusive(REGISTRATION, async () => {
      this.requireDisconnected();
      const number = `${input.phoneNumberCountryCode}${input.phoneNumberNationalNumber}`;
      if (number !== this.device.number) {
        throw new ValidationError(`body.phoneNumberNationalNumber: +${input.phoneNumberCountryCode} ${input.phoneNumberNationalNumber} is not this sandbox instance's number (${this.device.number})`);
      }
      const previous = await this.registration();
      // Preparing again voids a waiting code but not the wait between two code requests.
      await this.device.saveDocument<Registration>(REGISTRATION, {
        number,
        ...(previous?.lastRequestAt !== undefined ? { lastRequestAt: previous.lastRequestAt } : {}),
      });
    });
  }

  requestCode(method: 'sms' | 'voice'): Promise<{ method: string; length: number }> {
    return this.device.exclusive(REGISTRATION, async () => {
      const registration = await this.prepared();
      const now = Date.now();
      const { mobileCodeIntervalMs, mobileCodeTtlMs } = this.device.options;
      if (registration.lastRequestAt !== undefined && now - registration.lastRequestAt < mobileCodeIntervalMs) {
        const retryAfterSeconds = Math.ceil((registration.lastRequestAt + mobileCodeIntervalMs - now) / 1000);
        throw new ParleyError(429, 'too_recent', `a code was requested less than ${Math.ceil(mobileCodeIntervalMs / 1000)} s ago: request another in ${retryAfterSeconds} s`, { retryAfterSeconds });
      }
      const value = String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0');
      await this.device.saveDocument<Registration>(REGISTRATION, {
        ...registration, lastRequestAt: now, code: { value, method, expiresAt: now + mobileCodeTtlMs, attemptsLeft: MOBILE_VERIFY_ATTEMPTS },
      });
      return { method, length: CODE_LENGTH };
    });
  }

  verify(code: string): Promise<{ phoneConnected: boolean }> {
    return this.device.exclusive(REGISTRATION, async () => {
      const registration = await this.prepared();
      const issued = registration.code;
      if (!issued) throw new ConflictError('no code is waiting: request one with POST /{key}/instance/mobile/request-code', 'no_code');
      const withoutCode: Registration = { number: registration.number, lastRequestAt: registration.lastRequestAt };
      if (Date.now() >= issued.expiresAt) {
        await this.device.saveDocument<Registration>(REGISTRATION, withoutCode);
        throw new ConflictError('the code expired: request a new one with POST /{key}/instance/mobile/request-code', 'code_expired');
      }
      if (code !== issued.value) {
        const attemptsLeft = issued.attemptsLeft - 1;
        await this.device.saveDocument<Registration>(REGISTRATION, attemptsLeft > 0 ? { ...registration, code: { ...issued, attemptsLeft } } : withoutCode);
        throw new ParleyError(400, 'wrong_code', attemptsLeft > 0
          ? `body.code is not the code sent to +${registration.number}: ${attemptsLeft} attempt(s) left`
          : `body.code is not the code sent to +${registration.number}: no attempts left, request a new code`, { attemptsLeft });
      }
      await this.device.saveDocument<Registration | null>(REGISTRATION, null);
      await this.connection.link();
      return { phoneConnected: true };
    });
  }

  /** The code waiting on the simulated phone (what its SMS or call told); 404 when none is. */
  async waitingCode(): Promise<WaitingCode> {
    const code = (await this.registration())?.code;
    if (!code || Date.now() >= code.expiresAt) throw new NotFoundError('mobile registration code');
    return {
      code: `${code.value.slice(0, 3)}-${code.value.slice(3)}`, method: code.method, expiresAt: new Date(code.expiresAt).toISOString(),
      attemptsLeft: code.attemptsLeft,
    };
  }

  private registration(): Promise<Registration | null> {
    return this.device.document<Registration>(REGISTRATION);
  }

  /** The registration in progress; 409 when the instance is connected or `prepare` did not run. */
  private async prepared(): Promise<Registration> {
    this.requireDisconnected();
    const registration = await this.registration();
    if (!registration) throw new ConflictError('no registration is prepared: call POST /{key}/instance/mobile/prepare first', 'not_prepared');
    return registration;
  }

  private requireDisconnected(): void {
    if (this.device.connected) throw new ConflictError('the instance is already connected', 'already_connected');
  }
}
