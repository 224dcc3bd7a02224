/**
 * The integration providers: what each needs (its parameters, as the console and tools render
 * them) and which events it offers. Names, parameter names, types, `required` and `sensitive`,
 * and the event lists are the reference's (wire data); the texts describe what Pennon does.
 */
import type { ParameterValue } from './addon-store.ts'
import { OBSERVABILITY_EVENTS, SLACK_APP_EVENTS, TEAMS_WORKFLOW_EVENTS, WEBHOOK_EVENTS } from './provider-events.ts'

export interface ProviderParameter {
  name: string
  displayName: string
  type: 'url' | 'text' | 'textfield'
  description: string
  placeholder?: string
  required: boolean
  sensitive: boolean
}

export interface Provider {
  name: string
  displayName: string
  description: string
  documentationUrl: string
  howTo?: string
  parameters: ProviderParameter[]
  events: readonly string[]
}

const customHeaders: ProviderParameter = {
  name: 'customHeaders',
  displayName: 'Extra HTTP Headers',
  placeholder: '{\n  "X-Custom-Header": "value"\n}',
  description: '(Optional) More HTTP headers for each request: a JSON object whose keys and values are strings.',
  type: 'textfield',
  required: false,
  sensitive: true,
}

const bodyTemplate = (placeholder: string): ProviderParameter => ({
  name: 'bodyTemplate',
  displayName: 'Body template',
  placeholder,
  description:
    '(Optional) A Mustache template for the body, given `event` (the event object), `{{{eventJson}}}` (the event as JSON text) and `{{eventMarkdown}}` (a sentence describing it). Without one, the body is the event as JSON.',
  type: 'textfield',
  required: false,
  sensitive: false,
})

export const PROVIDERS: readonly Provider[] = [
  {
    name: 'webhook',
    displayName: 'Webhook',
    description: 'Posts each matching event to a URL of yours.',
    documentationUrl: 'https://docs.getunleash.io/integrate/webhook',
    howTo:
      'Pennon sends an HTTP POST to the URL for each event this integration takes, and sends it again until the receiver answers with a 2xx status.',
    parameters: [
      {
        name: 'url',
        displayName: 'Webhook URL',
        description: '(Required) The URL each event is posted to.',
        type: 'url',
        required: true,
        sensitive: true,
      },
      {
        name: 'contentType',
        displayName: 'Content-Type',
        placeholder: 'application/json',
        description: '(Optional) The Content-Type header of each request; application/json when not set.',
        type: 'text',
        required: false,
        sensitive: false,
      },
      {
        name: 'authorization',
        displayName: 'Authorization',
        placeholder: '',
        description: '(Optional) The Authorization header of each request; none when not set.',
        type: 'text',
        required: false,
        sensitive: true,
      },
      customHeaders,
      bodyTemplate(
        '{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}",\n  "flag": "{{event.featureName}}",\n  "json": {{{eventJson}}}\n}',
      ),
      {
        name: 'signingSecret',
        displayName: 'Signing secret',
        placeholder: 'whsec_…',
        description:
          '(Optional, Pennon) A Standard Webhooks secret (`whsec_` and base64): each request then carries a `webhook-signature` its receiver can verify.',
        type: 'text',
        required: false,
        sensitive: true,
      },
    ],
    events: WEBHOOK_EVENTS,
  },
  {
    name: 'slack-app',
    displayName: 'App for Slack',
    description: 'Posts a message about each matching event to Slack channels.',
    documentationUrl: 'https://docs.getunleash.io/integrate/slack-app',
    howTo:
      "Give the access token of a Slack app allowed to post messages. Messages go to the default channels, and to the channels named by a flag's `slack` tags.",
    parameters: [
      {
        name: 'accessToken',
        displayName: 'Access token',
        description: "(Required) The Slack app's bot token.",
        type: 'text',
        required: true,
        sensitive: true,
      },
      {
        name: 'defaultChannels',
        displayName: 'Channels',
        description: '(Optional) Channels to post every event to, separated by commas.',
        type: 'text',
        required: false,
        sensitive: false,
      },
    ],
    events: SLACK_APP_EVENTS,
  },
  {
    name: 'teamsworkflow',
    displayName: 'Microsoft Teams',
    description: 'Posts a card about each matching event to a Microsoft Teams workflow.',
    documentationUrl: 'https://docs.getunleash.io/integrate/teams',
    howTo: 'Create a Teams workflow triggered by an HTTP request and give its URL.',
    parameters: [
      {
        name: 'url',
        displayName: 'Workflow URL',
        description: "(Required) The URL of the workflow's HTTP trigger.",
        type: 'url',
        required: true,
        sensitive: true,
      },
      customHeaders,
    ],
    events: TEAMS_WORKFLOW_EVENTS,
  },
  {
    name: 'datadog',
    displayName: 'Datadog',
    description: "Sends each matching event to Datadog's Events API.",
    documentationUrl: 'https://docs.getunleash.io/integrate/datadog',
    howTo: 'Give a Datadog API key; the URL is needed only for a site other than datadoghq.com.',
    parameters: [
      {
        name: 'url',
        displayName: 'Datadog Events URL',
        description: '(Optional) The Events API URL of your Datadog site; https://api.datadoghq.com/api/v1/events when not set.',
        type: 'url',
        required: false,
        sensitive: false,
      },
      {
        name: 'apiKey',
        displayName: 'Datadog API key',
        description: '(Required) An API key of your Datadog organization.',
        type: 'text',
        required: true,
        sensitive: true,
      },
      {
        name: 'sourceTypeName',
        displayName: 'Datadog Source Type Name',
        description: '(Optional) The source type name Datadog shows for these events.',
        type: 'text',
        required: false,
        sensitive: false,
      },
      customHeaders,
      bodyTemplate('{\n  "event": "{{event.type}}",\n  "createdBy": "{{event.createdBy}}"\n}'),
    ],
    events: OBSERVABILITY_EVENTS,
  },
  {
    name: 'new-relic',
    displayName: 'New Relic',
    description: "Sends each matching event to New Relic's Event API.",
    documentationUrl: 'https://docs.getunleash.io/integrate/new-relic',
    howTo: 'Give the Event API URL of your account and a license key.',
    parameters: [
      {
        name: 'url',
        displayName: 'New Relic Event URL',
        description: '(Required) The Event API URL, with your account id.',
        type: 'url',
        required: true,
        sensitive: false,
      },
      {
        name: 'licenseKey',
        displayName: 'New Relic License Key',
        description: '(Required) A license key of your account.',
        type: 'text',
        required: true,
        sensitive: true,
      },
      customHeaders,
      bodyTemplate('{\n  "event": "{{event.type}}",\n  "eventType": "unleash",\n  "createdBy": "{{event.createdBy}}"\n}'),
    ],
    events: OBSERVABILITY_EVENTS,
  },
]

export const providerNamed = (name: string): Provider | undefined => PROVIDERS.find((provider) => provider.name === name)

/** What GET shows for a stored secret, and what a PUT sends to keep it. */
export const MASK = '*****'

/** Parameters with every sensitive one that is set shown as MASK. */
export function masked(provider: string, parameters: Record<string, ParameterValue>): Record<string, ParameterValue> {
  const sensitive = new Set(
    providerNamed(provider)
      ?.parameters.filter((p) => p.sensitive)
      .map((p) => p.name),
  )
  return Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, sensitive.has(name) ? MASK : value]))
}
