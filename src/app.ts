/**
 * buildApp wires Fastify, the admin pipeline and every feature's routes. It never
 * listens and never reads the environment: main.ts and the tests call it.
 * Every endpoint is one hop from here: find its feature below, open its -routes file.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.ts'
import type { Db } from './db/database.ts'
import { createAuthenticator } from './features/api-tokens/authenticator.ts'
import { ADMIN_PREFIX, registerAdminPipeline } from './http/admin-pipeline.ts'
import { OFREP_PREFIX, registerSdkPipeline } from './http/sdk-pipeline.ts'
import { sendOfrepError } from './features/openfeature/ofrep-errors.ts'
import { ofrepRoutes } from './features/openfeature/ofrep-routes.ts'
import { createOfrepService } from './features/openfeature/ofrep-service.ts'
import { createOfrepUsage, type OfrepUsage } from './features/openfeature/ofrep-usage.ts'
import { createCorsHandler } from './http/cors.ts'
import { registerOpenApi } from './http/openapi.ts'
import { healthRoutes } from './http/health-routes.ts'
import { lazySchemaController } from './http/schema-compilers.ts'
import { registerErrorHandler } from './http/error-handler.ts'
import { clientErrorHandler, createFrameworkErrorHandler } from './http/framework-errors.ts'
import { parseJsonBody } from './http/json-body.ts'
import { trustProxyOption } from './http/trust-proxy.ts'
import { serverWithFastPath, type FastPath } from './http/server-factory.ts'
import { createHostCheck, registerHostCheck } from './http/allowed-hosts.ts'
import { ErrorResponse } from './http/common-schemas.ts'
import { loggerOptions } from './http/logging.ts'
import type { Principal } from './http/permissions.ts'
import { createAuthThrottle } from './http/auth-throttle.ts'
import { projectRoutes } from './features/projects/project-routes.ts'
import { createEnvironmentStore, environmentExists } from './features/environments/environment-store.ts'
import { createProjectService } from './features/projects/project-service.ts'
import type { ProjectContents } from './features/projects/project-contents.ts'
import { flagRoutes } from './features/flags/flag-routes.ts'
import { createFlagService, flagOfPath } from './features/flags/flag-service.ts'
import { lifecycleRoutes } from './features/lifecycle/lifecycle-routes.ts'
import { favoriteRoutes } from './features/favorites/favorite-routes.ts'
import { createFavoriteService, favoriteFlagsOfCaller, favoriteProjectsOfCaller } from './features/favorites/favorite-service.ts'
import { createLifecycleService } from './features/lifecycle/lifecycle-service.ts'
import { flagLinkRoutes } from './features/flags/flag-link-routes.ts'
import { createFlagCreators, flagCreatorRoutes } from './features/flags/flag-creators.ts'
import { createProjectHealth, projectHealthRoutes } from './features/flags/project-health.ts'
import { projectInsightsRoutes } from './features/project-insights/project-insights-routes.ts'
import { personalDashboardRoutes } from './features/personal-dashboard/personal-dashboard-routes.ts'
import { createPersonalDashboardService } from './features/personal-dashboard/personal-dashboard-service.ts'
import { createProjectInsightsService } from './features/project-insights/project-insights-service.ts'
import { createFlagLinkService } from './features/flags/flag-link-service.ts'
import { projectHoldsFlag } from './features/flags/flag-store.ts'
import { flagsOfTags } from './features/flags/flags-of-tags.ts'
import { startPotentiallyStaleScan } from './features/flags/potentially-stale-scan.ts'
import { flagMetadataRoutes } from './features/flags/flag-metadata-routes.ts'
import { createFlagMetadataService } from './features/flags/flag-metadata-service.ts'
import { featureTypeRoutes } from './features/feature-types/feature-type-routes.ts'
import { createFeatureTypeService } from './features/feature-types/feature-type-service.ts'
import { addonRoutes } from './features/integrations/addon-routes.ts'
import { createAddonService, createRedelivery } from './features/integrations/addon-service.ts'
import { createDeliveryWorker } from './features/integrations/delivery-worker.ts'
import { createDeliveryStore } from './features/integrations/delivery-store.ts'
import { segmentRoutes } from './features/segments/segment-routes.ts'
import { createSegmentService } from './features/segments/segment-service.ts'
import { createSegmentStore } from './features/segments/segment-store.ts'
import { eventRoutes } from './features/events/event-routes.ts'
import { createEventService } from './features/events/event-service.ts'
import { eventSearchRoutes } from './features/events/event-search-routes.ts'
import { createEventSearchService } from './features/events/event-search-service.ts'
import { featureSearchRoutes } from './features/feature-search/feature-search-routes.ts'
import { createFeatureSearchService } from './features/feature-search/feature-search-service.ts'
import { projectStatusRoutes } from './features/project-status/project-status-routes.ts'
import { createProjectStatusService } from './features/project-status/project-status-service.ts'
import { tokenRoutes } from './features/api-tokens/token-routes.ts'
import { projectTokenRoutes } from './features/api-tokens/project-token-routes.ts'
import { environmentRoutes } from './features/environments/environment-routes.ts'
import { createEnvironmentService } from './features/environments/environment-service.ts'
import { flagEnvironmentRoutes } from './features/flag-environments/flag-environment-routes.ts'
import { createFlagEnvironmentService } from './features/flag-environments/flag-environment-service.ts'
import { changeRequestRoutes } from './features/change-requests/change-request-routes.ts'
import { createChangeRequestSearch } from './features/change-requests/change-request-search.ts'
import { changeRequestSearchRoutes } from './features/change-requests/change-request-search-routes.ts'
import { createSchedulesOfUsers } from './features/change-requests/suspend-schedules.ts'
import { createScheduleMails } from './features/change-requests/schedule-mails.ts'
import { createChangeRequestService } from './features/change-requests/change-request-service.ts'
import { startChangeRequestScheduler } from './features/change-requests/scheduler.ts'
import { createChangeRequestSettings } from './features/change-requests/settings-service.ts'
import { environmentsOfFlags } from './features/flag-environments/environments-of-flags.ts'
import { flagsOfEnvironments } from './features/flag-environments/flags-of-environments.ts'
import { definitionUses, fieldUses, segmentUses } from './features/flag-environments/strategy-uses.ts'
import { strategyRoutes } from './features/flag-environments/strategy-routes.ts'
import { defaultStrategyRoutes } from './features/flag-environments/default-strategy-routes.ts'
import { createDefaultStrategyService } from './features/flag-environments/default-strategy-service.ts'
import { strategySegmentRoutes } from './features/flag-environments/strategy-segment-routes.ts'
import { createFlagCloning, flagCloneRoutes } from './features/flag-environments/flag-clone.ts'
import { createStrategyService } from './features/flag-environments/strategy-service.ts'
import { strategyDefinitionRoutes } from './features/strategy-definitions/strategy-definition-routes.ts'
import { createStrategyDefinitionService } from './features/strategy-definitions/strategy-definition-service.ts'
import { createStrategyNames } from './features/strategy-definitions/strategy-names.ts'
import { clientRoutes } from './features/client-api/client-routes.ts'
import { createClientFeaturesService } from './features/client-api/client-features-service.ts'
import { createClientFeaturesFastPath } from './features/client-api/client-features-fast-path.ts'
import { deltaRoutes } from './features/client-api/delta-routes.ts'
import { createDeltaService } from './features/client-api/delta-service.ts'
import { streamingRoutes } from './features/client-api/streaming-routes.ts'
import { createStreamingHub, streamOwner } from './features/client-api/streaming-hub.ts'
import { frontendRoutes } from './features/client-api/frontend-routes.ts'
import { createFrontendService } from './features/client-api/frontend-service.ts'
import { createBodyPool } from './http/body-pool.ts'
import { CLIENT_PREFIX, FRONTEND_PREFIX } from './http/sdk-pipeline.ts'
import { createTokenStore } from './features/api-tokens/token-store.ts'
import { metricsAdminRoutes, metricsSdkRoutes } from './features/metrics/metrics-routes.ts'
import { createMetricsIngestionService, type MetricsIngestionService } from './features/metrics/metrics-ingestion-service.ts'
import { createMetricsReadService } from './features/metrics/metrics-read-service.ts'
import { usageRoutes } from './features/metrics/usage-routes.ts'
import { applicationRoutes } from './features/applications/application-routes.ts'
import { createApplicationService } from './features/applications/application-service.ts'
import { createUsageService } from './features/metrics/usage-service.ts'
import { createTokenService } from './features/api-tokens/token-service.ts'
import { displayNamesOfUsers, lockSigningInAdmins } from './features/users/user-store.ts'
import { meRoutes } from './features/me/me-routes.ts'
import { consoleRoutes } from './features/console/console-routes.ts'
import { contextFieldRoutes } from './features/context-fields/context-field-routes.ts'
import { createContextFieldService } from './features/context-fields/context-field-service.ts'
import { createContextFieldStore } from './features/context-fields/context-field-store.ts'
import { createLegalValues } from './features/context-fields/legal-values.ts'
import { playgroundRoutes } from './features/playground/playground-routes.ts'
import { createPlaygroundService } from './features/playground/playground-service.ts'
import { tagTypeRoutes } from './features/tags/tag-type-routes.ts'
import { createTagTypeService } from './features/tags/tag-type-service.ts'
import { tagRoutes } from './features/tags/tag-routes.ts'
import { createTagService } from './features/tags/tag-service.ts'
import { createDependencyService } from './features/flags/dependency-service.ts'
import { EDGE_PREFIX, edgeMetricsRoutes, edgeRoutes } from './features/edge/edge-routes.ts'
import { createEdgeService } from './features/edge/edge-service.ts'
import { createEdgeIssue } from './features/edge/edge-issue.ts'
import { revertRoutes } from './features/revert/revert-routes.ts'
import { createRevertService } from './features/revert/revert-service.ts'
import { exportImportRoutes } from './features/export-import/export-import-routes.ts'
import { createExportService } from './features/export-import/export-service.ts'
import { createImportService } from './features/export-import/import-service.ts'
import { createSessionService } from './features/sessions/session-service.ts'
import { sessionsOfUsers } from './features/sessions/session-store.ts'
import { createSessionAuthentication } from './features/sessions/session-authentication.ts'
import { authRoutes } from './features/sessions/auth-routes.ts'
import { createResetEmailLimits } from './features/sessions/reset-email-limits.ts'
import { createUserService } from './features/users/user-service.ts'
import { createEmailSender } from './features/email/email-sender.ts'
import { createInviteLinkService } from './features/invite-links/invite-link-service.ts'
import { inviteLinkRoutes } from './features/invite-links/invite-link-routes.ts'
import { publicInviteRoutes } from './features/invite-links/public-invite-routes.ts'
import { createPasswordAttempts } from './features/users/password-attempts.ts'
import { userRoutes } from './features/users/user-routes.ts'
import { accessRoutes } from './features/users/access-routes.ts'
import { createInactiveUsers } from './features/users/inactive-users.ts'
import { patsOfUsers } from './features/personal-tokens/pat-store.ts'
import { profileRoutes } from './features/users/profile-routes.ts'
import { patRoutes } from './features/personal-tokens/pat-routes.ts'
import { createPatService } from './features/personal-tokens/pat-service.ts'
import { createPersonalTokenLookup } from './features/personal-tokens/pat-principals.ts'
import { maintenanceRoutes } from './features/maintenance/maintenance-routes.ts'
import { createMaintenanceService } from './features/maintenance/maintenance-service.ts'
import { instanceAdminRoutes } from './features/instance-admin/instance-admin-routes.ts'
import { createInstanceStatsService } from './features/instance-admin/instance-stats-service.ts'
import { createFrontendOrigins } from './features/ui-config/frontend-origins.ts'
import { uiConfigRoutes } from './features/ui-config/ui-config-routes.ts'
import { createSsoSettingsService } from './features/sso/sso-settings-service.ts'
import { ssoSettingsRoutes } from './features/sso/sso-settings-routes.ts'
import { createOidcProviders } from './features/sso/oidc-provider.ts'
import { createOidcSignIn } from './features/sso/oidc-sign-in.ts'
import { oidcRoutes } from './features/sso/oidc-routes.ts'
import { baseUrlOf } from './features/users/user-routes.ts'

export interface AppOptions {
  config: Config
  database: Db
  /** Where log lines go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream
  /** Handed the SDK metrics service once built: tests see what it holds, and flush it. */
  onMetrics?: (metrics: MetricsIngestionService) => void
  /** Handed OFREP's usage counter: tests flush it. */
  onOfrepUsage?: (usage: OfrepUsage) => void
  /** Fastify's schema compilers (lazy by default); tests keep what they compiled from one app to the next (test/schema-cache.ts). */
  schemaController?: FastifyServerOptions['schemaController']
}

export async function buildApp({
  config,
  database,
  logStream,
  onMetrics,
  onOfrepUsage,
  schemaController,
}: AppOptions): Promise<FastifyInstance> {
  const { db, reader } = database
  // What was read from the database is remembered while this says nothing changed (tokens, events, archive validations).
  const changes = database.watchChanges()
  // Who a request is: its Authorization token, or without one its session cookie (docs/security.md).
  // Guesses of passwords and links, counted per address and account before their verdict.
  const attempts = createPasswordAttempts(config.loginFailuresPerAccount)
  const sessions = createSessionService({ db, config, attempts, changes })
  const sessionOf = createSessionAuthentication(sessions, config)
  // One count of failed authentications per address for every route that checks a credential (Edge's validation too).
  const authFailures = createAuthThrottle(config.authFailuresPerMinute)
  const authenticate = createAuthenticator({
    db,
    config,
    changes,
    personalTokens: createPersonalTokenLookup(db),
    session: sessionOf,
    throttle: authFailures,
  })
  // Requests answered before Fastify (server-factory.ts); none while requests are logged, none once closing.
  let fastPath: FastPath | undefined
  const logsRequests = config.logLevel === 'debug' || config.logLevel === 'trace'
  // The names Pennon answers to (against DNS rebinding): always with AUTH_TYPE=none, else when ALLOWED_HOSTS is set.
  const hosts = createHostCheck(config)
  const app = Fastify({
    serverFactory: serverWithFastPath(() => fastPath, hosts),
    logger: loggerOptions(config.logLevel, logStream),
    // Access logs only at debug/trace: at info they would double the work of the hot paths. Errors are always logged.
    logController: new LogController({ disableRequestLogging: !logsRequests }),
    bodyLimit: config.bodyLimit,
    // Slow clients are cut: headers and the whole request must arrive in time (checked every second).
    requestTimeout: config.requestTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 1000 },
    routerOptions: { maxParamLength: 1024 },
    // request.ip is the client behind the proxies TRUST_PROXY names (the failure throttle counts by it).
    trustProxy: trustProxyOption(config.trustProxy),
    frameworkErrors: createFrameworkErrorHandler(authenticate, [{ prefix: `${OFREP_PREFIX}/`, send: sendOfrepError }]),
    clientErrorHandler,
    // allowUnionTypes: `type: ['string', 'integer']` (a date as text or Unix seconds) fails with one message, where a union gives one per branch.
    ajv: {
      customOptions: {
        coerceTypes: false,
        allErrors: true,
        verbose: true,
        removeAdditional: false,
        useDefaults: false,
        allowUnionTypes: true,
      },
    },
    // Each route's schemas compiled on its first request (http/schema-compilers.ts).
    schemaController: schemaController ?? lazySchemaController(),
  }).withTypeProvider<TypeBoxTypeProvider>()

  registerErrorHandler(app)
  // Welcome and reset emails, and those about change request schedules gone wrong, through EMAIL_HOST, when set (features/email/).
  const email = createEmailSender(config.email, app.log)
  const scheduleMails = createScheduleMails({ db, email, publicUrl: config.publicUrl, log: app.log })
  app.addHook('onClose', () => scheduleMails.idle())
  const users = createUserService({
    db,
    attempts,
    sessions: sessionsOfUsers,
    schedules: createSchedulesOfUsers(scheduleMails),
    email,
  })
  const inviteLinks = createInviteLinkService({ db, users })
  // Single sign-on: its settings (OIDC_DISCOVER_URL, else the admin API) and the OpenID Connect sign-in, which hands the session feature a person.
  const ssoSettings = createSsoSettingsService({ db, fromEnvironment: config.oidc })
  const oidcSignIn = createOidcSignIn({ db, settings: () => ssoSettings.oidc(), providers: createOidcProviders(), sessions, users })
  // First of the hooks: a refused Host learns nothing else, on every path.
  if (hosts !== undefined) registerHostCheck(app, hosts)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody)
  // Any other type is read (within the body limit) and ignored: JSON-body routes refused it already with a 415.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined))
  // While maintenance mode is on, the admin API refuses changes (the setting remembered per change version).
  const maintenance = createMaintenanceService({ db, changes })
  registerAdminPipeline(app, {
    authenticate,
    changes,
    inMaintenance: maintenance.isOn,
    ...(config.corsOrigins.length > 0 ? { handleCors: createCorsHandler(config.corsOrigins) } : {}),
  })
  // Which origins' pages may call the frontend API: the stored setting, else FRONTEND_API_ORIGINS, remembered per change version.
  const frontendOrigins = createFrontendOrigins({ db, changes, defaults: config.frontendApiOrigins })
  registerSdkPipeline(app, { authenticate, frontendOrigins: frontendOrigins.current })
  app.addSchema(ErrorResponse)

  await registerOpenApi(app)
  await app.register(healthRoutes, { reader })

  // SDK metrics are held in memory and written every config.metricsFlushMs; closing the app writes what is held.
  // What a report may add is bounded (docs/metrics.md, "Limits"): frontend tokens are public.
  const metrics = createMetricsIngestionService({
    db,
    changes,
    log: app.log,
    flushIntervalMs: config.metricsFlushMs,
    limits: {
      maxApplications: config.metricsMaxApplications,
      applicationsPerToken: config.metricsApplicationsPerToken,
      instancesPerApplication: config.metricsInstancesPerApplication,
    },
  })
  onMetrics?.(metrics)
  app.addHook('onClose', () => metrics.close())
  const deliveries = createDeliveryWorker({
    db,
    changes,
    allowedHosts: config.integrationsAllowedHosts,
    slackApiUrl: config.integrationsSlackApiUrl,
    publicUrl: config.publicUrl,
    retryMaxSeconds: config.integrationsRetryMaxSeconds,
    retentionHours: config.integrationsRetentionHours,
    pollMs: config.integrationsPollMs,
    log: app.log,
  })
  app.addHook('onClose', () => deliveries.stop())
  // Flags that outlive their type's lifetime are marked and announced (feature-potentially-stale-on) by a periodic scan.
  const staleScan = startPotentiallyStaleScan({ db, intervalMs: config.staleScanIntervalMs, log: app.log, paused: maintenance.isOn })
  app.addHook('onClose', () => staleScan.stop())

  // What projects/ (the lowest feature) asks of what lives in a project, from the stores of the folders that own it.
  const projectContents: ProjectContents = {
    joinEnabledEnvironments: (trx, project) => createEnvironmentStore(trx).joinEnabledEnvironments(project),
    holdsFlag: projectHoldsFlag,
    holdsSegment: (database, project) => createSegmentStore(database).anyInProject(project),
    holdsContextField: (database, project) => createContextFieldStore(database).anyInProject(project),
    favoritesOf: favoriteProjectsOfCaller,
  }
  // Constraints on a context field with legal values use only those (strategies and segments).
  const legalValues = createLegalValues({ changes })
  await app.register(
    async (admin) => {
      await admin.register(metricsAdminRoutes, { reads: createMetricsReadService({ db }) })
      await admin.register(usageRoutes, { usage: createUsageService({ db }) })
      await admin.register(applicationRoutes, { applications: createApplicationService({ db }) })
      await admin.register(projectRoutes, { projects: createProjectService({ db, contents: projectContents }) })
      // Where direct changes need change requests instead: the gate flags/ and both flag-environment services ask.
      const changeRequestSettings = createChangeRequestSettings({ db, changes })
      const gate = changeRequestSettings.gate
      // Flags reach their environments (flag-environments/, above them) only through these few functions.
      const flags = createFlagService({ db, changes, environments: environmentsOfFlags, favorites: favoriteFlagsOfCaller, gate })
      await admin.register(flagRoutes, { flags, environmentSchema: environmentsOfFlags.schema })
      // A flag's lifecycle stages (lifecycle/, below flags/): the flag of the path found by flags/.
      await admin.register(lifecycleRoutes, { lifecycle: createLifecycleService({ db, flagOfPath }) })
      await admin.register(favoriteRoutes, { favorites: createFavoriteService({ db }) })
      const links = createFlagLinkService({ db })
      await admin.register(flagLinkRoutes, { links })
      const metadata = createFlagMetadataService({ db })
      await admin.register(flagMetadataRoutes, { metadata })
      await admin.register(featureTypeRoutes, { featureTypes: createFeatureTypeService({ db }) })
      const segments = createSegmentService({ db, config, legalValues, uses: segmentUses, gate })
      await admin.register(segmentRoutes, { segments })
      await admin.register(eventRoutes, { events: createEventService({ db, reader, changes }) })
      // Event creators are named by their user (users/, above events/).
      const userNames = (ids: readonly number[]) => displayNamesOfUsers(db, ids)
      await admin.register(eventSearchRoutes, { search: createEventSearchService({ db, userNames }) })
      await admin.register(flagCreatorRoutes, { flagCreators: createFlagCreators({ db, userNames }) })
      await admin.register(projectHealthRoutes, { projectHealth: createProjectHealth({ db, favoriteProjects: favoriteProjectsOfCaller }) })
      await admin.register(projectInsightsRoutes, { insights: createProjectInsightsService({ db }) })
      await admin.register(personalDashboardRoutes, { dashboard: createPersonalDashboardService({ db, publicUrl: config.publicUrl }) })
      await admin.register(featureSearchRoutes, { search: createFeatureSearchService({ db, userNames }) })
      await admin.register(projectStatusRoutes, { projectStatus: createProjectStatusService({ db }) })
      await admin.register(addonRoutes, {
        addons: createAddonService({ db, allowedHosts: config.integrationsAllowedHosts }),
        deliveries: createDeliveryStore(db),
        redeliver: createRedelivery({
          db,
          allowedHosts: config.integrationsAllowedHosts,
          slackApiUrl: config.integrationsSlackApiUrl,
          publicUrl: config.publicUrl,
        }),
      })
      const tokens = createTokenService({ db, lockSigningInAdmins, environmentExists })
      await admin.register(tokenRoutes, { tokens })
      await admin.register(projectTokenRoutes, { tokens })
      await admin.register(meRoutes)
      await admin.register(maintenanceRoutes, { maintenance })
      await admin.register(ssoSettingsRoutes, { settings: ssoSettings })
      await admin.register(uiConfigRoutes, {
        db,
        config,
        maintenance,
        frontendOrigins,
        passwordSignIn: ssoSettings.passwordSignInAllowed,
      })
      await admin.register(instanceAdminRoutes, {
        stats: createInstanceStatsService({
          db,
          // Without authentication nobody signs in.
          signInWays: async () => (config.authType === 'open-source' ? ssoSettings.ways() : { password: false, oidc: false }),
        }),
      })
      await admin.register(userRoutes, { users, config })
      await admin.register(accessRoutes, {
        db,
        inactive: createInactiveUsers({ db, users, pats: patsOfUsers, days: config.userInactivityDays }),
      })
      await admin.register(inviteLinkRoutes, { inviteLinks, config })
      await admin.register(profileRoutes, { users })
      await admin.register(patRoutes, { pats: createPatService({ db, maxLifetimeMs: config.patMaxLifetimeMs }) })
      await admin.register(environmentRoutes, { environments: createEnvironmentService({ db, flags: flagsOfEnvironments }) })
      await admin.register(strategyDefinitionRoutes, { definitions: createStrategyDefinitionService({ db, uses: definitionUses }) })
      const strategies = createStrategyService({ db, config, names: createStrategyNames({ db, changes }), legalValues, gate })
      await admin.register(strategyRoutes, { strategies })
      await admin.register(defaultStrategyRoutes, { defaults: createDefaultStrategyService({ db, strategies }), strategies })
      await admin.register(strategySegmentRoutes, { strategies })
      await admin.register(flagCloneRoutes, { cloneFlag: createFlagCloning({ db, flags, strategies }) })
      const flagEnvironments = createFlagEnvironmentService({ db, strategies, gate })
      await admin.register(flagEnvironmentRoutes, { flagEnvironments })
      // An applied change request makes its changes through the services above, in one transaction.
      const changeRequests = createChangeRequestService({
        db,
        services: { flagEnvironments, strategies, flags, segments },
        mails: scheduleMails,
      })
      await admin.register(changeRequestSearchRoutes, { search: createChangeRequestSearch({ db }) })
      // Scheduled requests are applied when due by whichever instance claims them first.
      const scheduler = startChangeRequestScheduler({
        changeRequests,
        intervalMs: config.changeRequestSchedulerIntervalMs,
        log: app.log,
        paused: maintenance.isOn,
      })
      // Stopped first, then the emails of its last pass are let finish.
      admin.addHook('onClose', async () => {
        await scheduler.stop()
        await scheduleMails.idle()
      })
      await admin.register(changeRequestRoutes, { settings: changeRequestSettings, changeRequests, scheduler })
      // Reverting an event makes its changes through the services above, in one transaction.
      const dependencies = createDependencyService({ db, gate })
      await admin.register(revertRoutes, { reverts: createRevertService({ db, metadata, flagEnvironments, strategies, dependencies }) })
      const contextFields = createContextFieldService({ db, changes, uses: fieldUses })
      await admin.register(contextFieldRoutes, { contextFields })
      const tagTypes = createTagTypeService({ db, flags: flagsOfTags })
      await admin.register(tagTypeRoutes, { tagTypes })
      const tagService = createTagService({ db, flags: flagsOfTags })
      await admin.register(tagRoutes, { tagService })
      // An import makes its changes through the services above, in one transaction.
      const imports = createImportService({
        db,
        flags,
        metadata,
        flagEnvironments,
        strategies,
        dependencies,
        tags: tagService,
        tagTypes,
        contextFields,
        links,
      })
      await admin.register(exportImportRoutes, { exports: createExportService({ db }), imports })
    },
    { prefix: ADMIN_PREFIX },
  )

  // The APIs SDKs read flags from (sdk-pipeline.ts: client tokens, frontend tokens).
  const clientFeatures = createClientFeaturesService({ db: reader, changes })
  // Deltas and streams follow the same built flags; streams are pushed when the change watch speaks.
  const delta = createDeltaService({ clientFeatures, changes, historySize: config.deltaHistoryRevisions })
  const hub = createStreamingHub({
    delta,
    changes,
    heartbeatMs: config.streamingHeartbeatMs,
    maxConnections: config.streamingMaxConnections,
    maxPerToken: config.streamingMaxConnectionsPerToken,
    log: app.log,
  })
  // Polling SDKs are told to stream only when configured so, and while their token's stream would be taken.
  const suggestStreaming = (principal: Principal) => config.clientFetchMode === 'streaming' && hub.hasRoom(streamOwner(principal))
  await app.register(clientRoutes, { prefix: CLIENT_PREFIX, clientFeatures, suggestStreaming })
  await app.register(deltaRoutes, { prefix: CLIENT_PREFIX, delta, suggestStreaming })
  await app.register(streamingRoutes, {
    prefix: CLIENT_PREFIX,
    hub,
    maxConnections: config.streamingMaxConnections,
    maxPerToken: config.streamingMaxConnectionsPerToken,
  })
  if (!logsRequests) fastPath = createClientFeaturesFastPath({ authenticate, clientFeatures, suggestStreaming })
  app.addHook('preClose', async () => {
    fastPath = undefined
    // Open streams would hold the close forever: ended, their SDKs reconnect (here once restarted, or to another instance).
    hub.close()
  })
  // The frontend API's and OFREP's bulk answers are written into reused buffers (http/body-pool.ts).
  const bodies = createBodyPool()
  const frontend = createFrontendService({ clientFeatures, bodies })
  await app.register(frontendRoutes, { prefix: FRONTEND_PREFIX, frontend, bodies })
  // OpenFeature's remote evaluation protocol: the frontend API's evaluators, its tokens, the streams' hub; evaluations counted as usage.
  const ofrepUsage = createOfrepUsage({ metrics, flushIntervalMs: config.ofrepUsageFlushMs, log: app.log })
  onOfrepUsage?.(ofrepUsage)
  app.addHook('preClose', () => ofrepUsage.flush())
  const tokenStore = createTokenStore(reader)
  await app.register(ofrepRoutes, {
    prefix: OFREP_PREFIX,
    ofrep: createOfrepService({
      frontend,
      usage: ofrepUsage,
      tokensByName: (name, now) => tokenStore.workingByName(name, now),
      streams: config.streamingMaxConnections > 0,
      publicUrl: config.publicUrl,
      openAccess: config.authType === 'none',
      bodies,
    }),
    hub,
    bodies,
    maxConnections: config.streamingMaxConnections,
    maxPerToken: config.streamingMaxConnectionsPerToken,
  })
  await app.register(metricsSdkRoutes, { metrics, bodyLimit: config.bodyLimit })
  // Unleash Edge's own routes: token validation (no credentials, as the reference) and its report of itself.
  await app.register(edgeRoutes, {
    prefix: EDGE_PREFIX,
    edge: createEdgeService({ db: reader, throttle: authFailures }),
    issue: createEdgeIssue({
      db,
      tokens: createTokenService({ db, lockSigningInAdmins, environmentExists }),
      clientSecret: config.edgeClientSecret,
    }),
    bodyLimit: config.bodyLimit,
  })
  await app.register(edgeMetricsRoutes, { bodyLimit: config.bodyLimit })
  // The admin API's playground: the SDKs' evaluation of the same flags, explained (admin pipeline, permission NONE).
  await app.register(playgroundRoutes, {
    prefix: ADMIN_PREFIX,
    playground: createPlaygroundService({
      db: reader,
      changes,
      clientFeatures,
      limits: { maxEvaluations: config.playgroundMaxEvaluations, maxAnswerCharacters: config.playgroundMaxAnswerCharacters },
    }),
  })

  // The admin console at `/` (console/ in the repository), built on the admin API alone.
  // Signing up with an invite link: public, as /auth is.
  await app.register(publicInviteRoutes, { inviteLinks })
  await app.register(authRoutes, {
    config,
    sessions,
    users,
    attempts,
    resetEmails: createResetEmailLimits(),
    sessionOf,
    passwordSignIn: ssoSettings.passwordSignInAllowed,
    signOut: (sessionHash, request) => oidcSignIn.signOut(sessionHash, `${baseUrlOf(request, config)}/`),
  })
  await app.register(oidcRoutes, { config, signIn: oidcSignIn, ways: ssoSettings.ways })
  await app.register(consoleRoutes, { authType: config.authType })

  return app
}
