export { projectTeamRooms } from './projectTeamRooms.js';
export type { ProjectTeamRoomsOptions, ProjectedRoomFile, ProjectedRooms } from './projectTeamRooms.js';
export { escapeRoomField } from './escapeRoomField.js';
export { formatRoomLine } from './formatRoomLine.js';
