import type { BaileysEventEmitter, UserFacingSocketConfig, WASocket } from '@whiskeysockets/baileys';

/**
 * The part of a Baileys socket the adapter uses. Tests hand in a fake with the same members (same
 * event names on `ev`, same method signatures), so the adapter never sees a difference.
 */
export type BaileysSocket = Pick<
  WASocket,
  | 'user' | 'authState' | 'signalRepository' | 'end' | 'logout' | 'requestPairingCode' | 'resyncAppState'
  | 'fetchAccountReachoutTimelock' | 'waUploadToServer' | 'refreshMediaConn'
  // messaging
  | 'sendMessage' | 'relayMessage' | 'sendPresenceUpdate' | 'createCallLink' | 'updateMediaMessage' | 'readMessages'
  // chats, contacts, labels, profile
  | 'chatModify' | 'presenceSubscribe' | 'fetchPrivacySettings' | 'updateReadReceiptsPrivacy' | 'updateProfilePicturePrivacy'
  | 'updateStatusPrivacy' | 'updateOnlinePrivacy' | 'updateLastSeenPrivacy' | 'updateGroupsAddPrivacy' | 'updateCallPrivacy'
  | 'updateMessagesPrivacy' | 'addOrEditContact' | 'removeContact' | 'updateBlockStatus'
  | 'fetchBlocklist' | 'fetchStatus' | 'onWhatsApp' | 'addLabel' | 'addChatLabel' | 'removeChatLabel' | 'updateProfilePicture'
  | 'removeProfilePicture' | 'profilePictureUrl' | 'updateProfileName' | 'updateProfileStatus' | 'getBusinessProfile'
  // groups
  | 'groupMetadata' | 'groupCreate' | 'groupLeave' | 'groupUpdateSubject' | 'groupUpdateDescription' | 'groupSettingUpdate'
  | 'groupParticipantsUpdate' | 'groupRequestParticipantsList' | 'groupRequestParticipantsUpdate' | 'groupInviteCode'
  | 'groupGetInviteInfo' | 'groupFetchAllParticipating' | 'groupAcceptInvite' | 'groupJoinApprovalMode'
  // communities
  | 'communityCreate' | 'communityCreateGroup' | 'communityLeave' | 'communityUpdateSubject'
  | 'communityInviteCode' | 'communityAcceptInvite'
  | 'communityRequestParticipantsList' | 'communityRequestParticipantsUpdate' | 'communityParticipantsUpdate'
  | 'communityToggleEphemeral' | 'communitySettingUpdate' | 'communityMemberAddMode' | 'communityJoinApprovalMode'
  | 'communityFetchLinkedGroups'
  // business catalog and calls
  | 'getCatalog' | 'getCollections' | 'productCreate' | 'productUpdate' | 'productDelete' | 'getOrderDetails' | 'rejectCall'
  // the WebSocket's stanza events (`CB:receipt`), for what Baileys' own events leave out
  | 'ws'
> & { ev: BaileysEventEmitter };

/** Builds a socket from Baileys' configuration; the default is Baileys' `makeWASocket`. */
export type SocketFactory = (config: UserFacingSocketConfig) => BaileysSocket;
