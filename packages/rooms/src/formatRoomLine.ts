import type { TeamMessage } from '@roundtable/graph';
import { escapeRoomField } from './escapeRoomField.js';

/** `<sender> [<messageId>] @<mention>…: <text>\n`, each field escaped. */
export function formatRoomLine(message: TeamMessage): string {
  const mentions = message.mentions.map((mention) => ` @${escapeRoomField(mention)}`).join('');
  return `${escapeRoomField(message.sender)} [${escapeRoomField(message.id)}]${mentions}: ${escapeRoomField(message.text)}\n`;
}
