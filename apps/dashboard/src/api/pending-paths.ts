/*
 * TEMPORARY, removed when the dashboard endpoints (issue 7 part 3, branch wip/dash-api) are merged
 * and src/api/openapi.d.ts is regenerated from them: their pinned shapes (CONTRACT 1.1), in the
 * generated file's format, so the pages type-check against the contract meanwhile.
 */
type NoParams = { query?: never; header?: never; path?: never; cookie?: never };
type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Failure = Json<{ error: string; code: string; upgrade_url?: string }>;
type Operation<Params, Body, Responses> = { parameters: Params; requestBody?: Body; responses: Responses };
type PathItem<Methods> = { parameters: NoParams } & Methods;

type AppPath = { header?: never; path: { appId: string }; cookie?: never };
type Notification = {
  id: string;
  status: string;
  targets: number;
  sent: number;
  failed: number;
  expired: number;
  createdAt: string;
  completedAt: string | null;
};

export interface PendingPaths {
  '/api/v1/plans': PathItem<{
    get: Operation<
      NoParams,
      never,
      {
        200: Json<{
          plans: {
            id: string;
            name: string;
            limits: { apps: number | null; subscribers: number | null; sendsPerMonth: number | null };
          }[];
        }>;
      }
    >;
  }>;
  '/api/v1/auth/providers': PathItem<{ get: Operation<NoParams, never, { 200: Json<{ github: boolean }> }> }>;
  '/api/v1/apps/{appId}/notifications': PathItem<{
    get: Operation<
      AppPath & { query?: { limit?: number; cursor?: string } },
      never,
      { 200: Json<{ notifications: Notification[]; nextCursor: string | null }>; 400: Failure; 404: Failure }
    >;
    post: Operation<
      AppPath & { query?: never },
      {
        content: {
          'application/json': { title: string; body: string; url?: string; icon?: string; badge?: string };
        };
      },
      { 202: Json<{ notification: { id: string; status: 'queued'; targets: number } }>; 400: Failure }
    >;
  }>;
  '/api/v1/apps/{appId}/subscribers': PathItem<{
    get: Operation<
      AppPath & { query?: { status?: 'active' | 'expired'; limit?: number; cursor?: string } },
      never,
      {
        200: Json<{
          subscribers: {
            id: string;
            endpoint: string;
            status: string;
            uid: string | null;
            tags: Record<string, string>;
            createdAt: string;
          }[];
          nextCursor: string | null;
        }>;
        404: Failure;
      }
    >;
  }>;
  '/api/v1/apps/{appId}/subscribers/{subscriberId}': PathItem<{
    delete: Operation<
      { query?: never; header?: never; path: { appId: string; subscriberId: string }; cookie?: never },
      never,
      { 204: { headers: { [name: string]: unknown }; content?: never }; 404: Failure }
    >;
  }>;
  '/api/v1/apps/{appId}/usage': PathItem<{
    get: Operation<
      AppPath & { query?: { days?: number } },
      never,
      {
        200: Json<{ month: { sends: number; limit: number | null }; days: { date: string; sends: number }[] }>;
        404: Failure;
      }
    >;
  }>;
}
