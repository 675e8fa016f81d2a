// The viewer page's copy of the room-file escape (`escapeRoomField` of @roundtable/rooms): the page
// script runs in a browser and imports nothing, so it cannot take the rooms package's;
// escapeField.test.ts holds the two to the same output.
/** The room-file escapes: `\` and control characters as visible escapes, one line always. */
export function escapeField(text: unknown): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return String(text).replace(/[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (character) => {
    switch (character) {
      case '\\':
        return '\\\\';
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}
