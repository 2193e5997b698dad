import type { ReceivedRequest, ReceiverReply } from '@parley/testkit';

/** An HTTP answer as Chatwoot's HTTParty calls see it: `success?` and the parsed JSON. */
export interface ChatwootResponse {
  status: number;
  success: boolean;
  parsed: any;
  contentType: string;
}

/** The request as sent, for the tests to check the replay against Chatwoot's code. */
export interface ChatwootRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The requests Chatwoot's WhatsApp Cloud channel makes, replayed byte for byte in what matters to
 * Parley (method, path with Chatwoot's pinned Graph versions, the `access_token` query, headers, JSON
 * bodies with Ruby's `nil` as `null`). Read from chatwoot/chatwoot, not copied:
 * - app/services/whatsapp/providers/whatsapp_cloud_service.rb: `phone_id_path` (v13.0), `business_account_path`
 *   (v14.0), `api_headers`, `send_text_message`, `send_attachment_message`, `send_interactive_text_message`,
 *   `send_template`, `sync_templates` / `fetch_whatsapp_templates` (follows `paging.next`), `validate_provider_config?`,
 *   `media_url`;
 * - app/services/whatsapp/providers/base_service.rb: `process_response`, `create_payload` (the interactive
 *   `action` as JSON text), `create_buttons`, `create_rows`;
 * - app/services/whatsapp/csat_template_service.rb: create, status by `?name=`, delete by `?name=`;
 * - app/services/whatsapp/incoming_message_whatsapp_cloud_service.rb: `download_attachment_file` (the media's
 *   `url`, then the bytes with the same headers);
 * - app/jobs/webhooks/whatsapp_events_job.rb, app/controllers/webhooks/whatsapp_controller.rb and
 *   app/controllers/concerns/meta_token_verify_concern.rb: the inbox found by `+display_phone_number` and
 *   `phone_number_id`, the handshake answering `hub.challenge` as it came.
 */
export class ChatwootInbox {
  readonly sent: ChatwootRequest[] = [];

  /** `provider_config` of a WhatsApp Cloud inbox pointed at Parley (WHATSAPP_CLOUD_BASE_URL). */
  constructor(
    private readonly baseUrl: string,
    readonly config: { api_key: string; phone_number_id: string; business_account_id: string; webhook_verify_token: string; phone_number: string },
  ) {}

  private get phoneIdPath(): string {
    return `${this.baseUrl}/v13.0/${this.config.phone_number_id}`;
  }

  private get businessAccountPath(): string {
    return `${this.baseUrl}/v14.0/${this.config.business_account_id}`;
  }

  get apiHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.config.api_key}`, 'Content-Type': 'application/json' };
  }

  /** One HTTParty call: JSON bodies are `to_json` of the Ruby hash (nil → null). */
  async request(method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<ChatwootResponse> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    this.sent.push({ method, url, headers, ...(text === undefined ? {} : { body: text }) });
    const res = await fetch(url, { method, headers, ...(text === undefined ? {} : { body: text }) });
    const raw = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    return { status: res.status, success: res.status >= 200 && res.status < 300, parsed: contentType.includes('json') && raw ? JSON.parse(raw) : raw, contentType };
  }

  /** `validate_provider_config?`: the templates path with the key as `access_token`, no headers. */
  async validateProviderConfig(): Promise<boolean> {
    return (await this.request('GET', `${this.businessAccountPath}/message_templates?access_token=${this.config.api_key}`)).success;
  }

  /** `sync_templates`: every page, following `paging.next` as it is. */
  async syncTemplates(): Promise<any[]> {
    const fetchAll = async (url: string): Promise<any[]> => {
      const res = await this.request('GET', url);
      if (!res.success) return [];
      const next = res.parsed.paging ? res.parsed.paging.next : '';
      return next ? [...res.parsed.data, ...(await fetchAll(next))] : res.parsed.data;
    };
    return fetchAll(`${this.businessAccountPath}/message_templates?access_token=${this.config.api_key}`);
  }

  /** `process_response`: the message id when 2xx without `error`, else the error's message (what Chatwoot stores as external_error). */
  private static outcome(res: ChatwootResponse): { id?: string; externalError?: string } {
    if (res.success && !res.parsed.error) return { id: res.parsed.messages[0].id };
    return { externalError: res.parsed?.error?.message };
  }

  private async sendMessage(body: Record<string, unknown>): Promise<{ id?: string; externalError?: string; res: ChatwootResponse }> {
    const res = await this.request('POST', `${this.phoneIdPath}/messages`, this.apiHeaders, body);
    return { ...ChatwootInbox.outcome(res), res };
  }

  /** `send_text_message`: `context` is nil (null) unless the message replies to one. */
  sendText(to: string, content: string, replyTo?: string) {
    return this.sendMessage({ messaging_product: 'whatsapp', context: replyTo ? { message_id: replyTo } : null, to, text: { body: content }, type: 'text' });
  }

  /** `send_attachment_message`: a link, the message's text as caption (nil without text; none for audio), a document's filename. */
  sendAttachment(to: string, fileType: string, link: string, content: string | null, filename: string) {
    const type = ['image', 'audio', 'video'].includes(fileType) ? fileType : 'document';
    const typeContent: Record<string, unknown> = { link };
    if (!['audio', 'sticker'].includes(type)) typeContent.caption = content;
    if (type === 'document') typeContent.filename = filename;
    return this.sendMessage({ messaging_product: 'whatsapp', context: null, to, type, [type]: typeContent });
  }

  /** `send_interactive_text_message` of an `input_select` message: buttons up to 3 items without descriptions, else a list; `action` as JSON text. */
  sendInteractive(to: string, content: string, items: { title: string; value: string; description?: string }[], listButtonLabel = 'Choose an item') {
    const list = items.length > 3 || items.some((i) => i.description);
    const action = list
      ? { button: listButtonLabel, sections: [{ rows: items.map((i) => ({ id: i.value, title: i.title, ...(i.description ? { description: i.description } : {}) })) }] }
      : { buttons: items.map((i) => ({ type: 'reply', reply: { id: i.value, title: i.title } })) };
    return this.sendMessage({ messaging_product: 'whatsapp', to, interactive: { type: list ? 'list' : 'button', body: { text: content }, action: JSON.stringify(action) }, type: 'interactive' });
  }

  /** `send_template`: `language.policy` deterministic, the components as the template's processed parameters. */
  sendTemplate(to: string, name: string, langCode: string, components: unknown[]) {
    return this.sendMessage({ messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'template', template: { name, language: { policy: 'deterministic', code: langCode }, components } });
  }

  /** CsatTemplateService#create_template: a body and one URL button ending in `{{1}}` with its example. */
  async createCsatTemplate(config: { message: string; button_text?: string; base_url: string; language?: string }): Promise<{ success: boolean; template_id?: string; response: ChatwootResponse }> {
    const res = await this.request('POST', `${this.businessAccountPath}/message_templates`, this.apiHeaders, {
      name: 'customer_satisfaction_survey', language: config.language ?? 'en', category: 'UTILITY',
      components: [
        { type: 'BODY', text: config.message },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: config.button_text ?? 'Please rate us', url: `${config.base_url}/survey/responses/{{1}}`, example: ['12345'] }] },
      ],
    });
    return { success: res.success, ...(res.success ? { template_id: res.parsed.id } : {}), response: res };
  }

  /** CsatTemplateService#get_template_status: `?name=` with the headers; the first item's id, name, status, language. */
  async csatTemplateStatus(name = 'customer_satisfaction_survey'): Promise<{ success: boolean; template?: Record<string, unknown> }> {
    const res = await this.request('GET', `${this.businessAccountPath}/message_templates?name=${name}`, this.apiHeaders);
    if (!(res.success && res.parsed.data?.length)) return { success: false };
    const t = res.parsed.data[0];
    return { success: true, template: { id: t.id, name: t.name, status: t.status, language: t.language } };
  }

  /** CsatTemplateService#delete_template. */
  async deleteCsatTemplate(): Promise<boolean> {
    return (await this.request('DELETE', `${this.businessAccountPath}/message_templates?name=customer_satisfaction_survey`, this.apiHeaders)).success;
  }

  /** `download_attachment_file`: the media's `url` (with `phone_number_id`), then its bytes with the same headers; null where Chatwoot gives up. */
  async downloadAttachment(mediaId: string): Promise<{ data: Buffer; contentType: string } | null> {
    const described = await this.request('GET', `${this.baseUrl}/v13.0/${mediaId}?phone_number_id=${this.config.phone_number_id}`, this.apiHeaders);
    if (!described.success || !described.parsed.url) return null;
    const res = await fetch(described.parsed.url, { headers: this.apiHeaders });
    if (!res.ok) return null;
    return { data: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? '' };
  }

  /**
   * The inbox's webhook endpoint (`/webhooks/whatsapp/+<number>`) as a receiver's responder: the
   * handshake answers the challenge when the verify token is the inbox's (401 otherwise); a POST is
   * accepted (`head :ok`).
   */
  webhookResponder(): (request: ReceivedRequest) => ReceiverReply {
    return (request) => {
      if (request.method !== 'GET') return { status: 200, body: '' };
      const query = new URL(request.url, 'http://chatwoot').searchParams;
      if (query.get('hub.verify_token') === this.config.webhook_verify_token) return { status: 200, body: query.get('hub.challenge') ?? '' };
      return { status: 401, body: JSON.stringify({ error: 'Error; wrong verify token' }) };
    };
  }

  /** WhatsappEventsJob#get_channel_from_wb_payload: whether a delivery reaches this inbox. */
  accepts(payload: any): boolean {
    if (payload.object !== 'whatsapp_business_account') return false;
    const metadata = payload.entry[0].changes[0].value.metadata;
    return `+${metadata.display_phone_number}` === this.config.phone_number && metadata.phone_number_id === this.config.phone_number_id;
  }
}
