/**
 * A test card funded by the wallet (`POST /cards` through the proxy, with an Idempotency-Key), and
 * its delegated key: `wallet.createDelegatedKey` runs three legs (202, signed 202, signed 201) —
 * all visible in the request log. Also the card's keys, and revoking one.
 */
import { serviceCall } from '../../api.js';
import type { App } from '../../app.js';
import { busy, field, h, replace, type Status } from '../../dom.js';
import { shortId } from '../../format.js';
import type { DelegatedKey } from '../../../../src/index.js';
import { frame, type Section } from './section.js';

interface Card {
  id: string;
  last4?: string;
  status?: string;
  expirationMonth?: number;
  expirationYear?: number;
}

/** The cards made in this tab, per customer (the library has no route that lists cards). */
const cardsByCustomer = new Map<string, Card[]>();

function keyRow(app: App, s: Status, k: DelegatedKey, reload: () => Promise<void>): HTMLElement {
  const btn = h('button', { type: 'button', class: 'danger', testid: 'delegated-revoke', disabled: k.status === 'REVOKED' }, 'Revoke');
  btn.addEventListener('click', () =>
    void busy(btn, 'Revoking…', async () => {
      s.clear();
      try {
        await app.wallet!.revokeDelegatedKey(k.id, app.accountId);
        s.note(`Delegated key ${shortId(k.id)} revoked.`);
        await reload();
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );
  return h('li', { testid: 'delegated-row', 'data-status': k.status }, h('b', {}, k.nickname), ` · ${k.status} · card ${shortId(k.cardId)} · key ${k.publicKey.slice(0, 10)}… `, btn);
}

export function cardSection(app: App): Section {
  const customerId = app.me!.customer.id;
  const cards = cardsByCustomer.get(customerId) ?? [];
  cardsByCustomer.set(customerId, cards);
  const { el, body, s } = frame('card', 'Card and delegated key', 'Create a test card on the wallet, then a delegated signing key for it (held by the service, created with three signed legs).');
  const cardInfo = h('p', { testid: 'card-result' }, cards.length ? '' : 'No card yet.');
  const keys = h('ul', { class: 'rows', testid: 'delegated-list' });
  const reloadKeys = async () => {
    const all = await app.wallet!.listDelegatedKeys({ accountId: app.accountId });
    replace(keys, ...all.map((k) => keyRow(app, s, k, reloadKeys)));
  };
  const showCard = () => {
    const c = cards[cards.length - 1];
    if (c) cardInfo.textContent = `Card •••• ${c.last4 ?? '????'} (${c.status ?? '?'}), expires ${c.expirationMonth ?? '?'}/${c.expirationYear ?? '?'} · ${shortId(c.id)}`;
  };
  showCard();

  const makeCard = h('button', { type: 'button', testid: 'card-create' }, 'Create test card');
  makeCard.addEventListener('click', () =>
    void busy(makeCard, 'Creating…', async () => {
      s.clear();
      try {
        const card = await serviceCall<Card>(app.leg, 'POST', '/cards', {
          body: { cardholderId: customerId, fundingSource: app.accountId },
          idempotencyKey: crypto.randomUUID(),
        });
        cards.push(card);
        showCard();
        delegate.disabled = false;
      } catch (e) {
        app.fail(s, e);
      }
    }),
  );

  const nickname = h('input', { testid: 'delegated-nickname', value: 'Card spending key', maxlength: 100, required: true });
  const delegate = h('button', { type: 'submit', class: 'primary', testid: 'delegated-create', disabled: cards.length === 0 }, 'Create delegated key');
  const form = h('form', { class: 'inline-form' }, field('Key name', nickname), delegate);
  const result = h('p', { testid: 'delegated-result', class: 'result' });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const card = cards[cards.length - 1];
    if (!card) return s.error('Create a card first.');
    void busy(delegate, 'Signing (3 legs)…', async () => {
      s.clear();
      try {
        const key = await app.wallet!.createDelegatedKey({ cardId: card.id, internalAccountId: app.accountId, nickname: nickname.value.trim() });
        result.textContent = `Delegated key ${shortId(key.id)} is ${key.status}; public key ${key.publicKey.slice(0, 18)}…`;
        await reloadKeys();
      } catch (e) {
        app.fail(s, e);
      }
    });
  });
  body.append(h('div', { class: 'row' }, makeCard), cardInfo, form, result, keys);
  reloadKeys().catch((e: unknown) => app.fail(s, e));
  return { el };
}
