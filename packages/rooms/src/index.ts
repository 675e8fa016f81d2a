export { projectTeamRooms } from './projectTeamRooms.js';
export { followTeamRooms } from './followTeamRooms.js';
export type { FollowTeamRoomsOptions } from './followTeamRooms.js';
export type { ProjectTeamRoomsOptions, ProjectedRoomFile, ProjectedRooms } from './teamRun.js';
export { RoomsError, RoomsErrorCodes, isRoomsError } from './roomsError.js';
export type { RoomsErrorCode } from './roomsError.js';
export { roomFileName, roomIndexFileName } from './roomFileName.js';
export { escapeRoomField } from './escapeRoomField.js';
export { formatRoomLine } from './formatRoomLine.js';
