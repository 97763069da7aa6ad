import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  Type,
  UseGuards,
} from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ApiNotFoundResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AppException } from '../errors/app.exception';

const OWNS_KEY = 'switchyard:owns';

/** A service that can say who owns one of its resources, by the path parameter's value. */
export interface OwnedResources {
  /**
   * The owner's user id, or null when there is no such resource. `callerId` is for resources named per owner
   * (a space app's slug is unique only among its owner's apps): look the ref up among the caller's own.
   */
  ownerOf(ref: string, callerId: string): Promise<string | null>;
  /** The error for "not yours or not there": the same, so ids cannot be probed (docs/decisions.md#answers-and-errors). */
  notFound(): AppException;
}

/**
 * Only the owner gets past: the resource named by a path parameter must belong to the signed-in user, else the
 * owning service's not-found error (404, never 403, so another user's ids are not confirmed).
 */
@Injectable()
export class OwnershipGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly modules: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.get<{ service: Type<OwnedResources>; param: string } | undefined>(
      OWNS_KEY,
      context.getHandler(),
    );
    if (!rule) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const service = this.modules.get(rule.service, { strict: false });
    const ref = req.params[rule.param];
    const owner = typeof ref === 'string' && req.principal ? await service.ownerOf(ref, req.principal.userId) : null;
    if (!req.principal || owner === null || owner !== req.principal.userId) throw service.notFound();
    return true;
  }
}

/** `@Owns(ClientsService, 'id')`: the route's `:id` must name a resource the caller owns. */
export function Owns(service: Type<OwnedResources>, param: string) {
  return applyDecorators(
    SetMetadata(OWNS_KEY, { service, param }),
    UseGuards(OwnershipGuard),
    ApiNotFoundResponse({ description: 'Not found, also when it belongs to another user' }),
  );
}
