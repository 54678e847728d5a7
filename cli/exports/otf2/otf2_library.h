/* otf2_library: libotf2, loaded when an OTF2 archive is asked for (dlopen), not linked.
 * A tracer linked to it did not start where OTF2 is not installed (`error while loading
 * shared libraries: libopen-trace-format2.so.10` on a GPU node that carries LTTng alone,
 * docs/cuda.md); now it starts wherever LTTng runs, and only --otf2 needs the library.
 *
 * The export's files include this header instead of <otf2/otf2.h>: the OTF2 functions
 * they call are names of the table's entries (the defines at the end), filled by
 * otf2_library_load(). A call of a function missing from the list fails to link, since
 * nothing links libotf2. Library code: no messages. */
#ifndef TRACER_OTF2_LIBRARY_H
#define TRACER_OTF2_LIBRARY_H

#include <otf2/otf2.h>

#include "diag.h"

/* The functions the export calls, each resolved by its own name. */
#define OTF2_LIBRARY_FUNCTIONS(X) \
  X(OTF2_Archive_Close) \
  X(OTF2_Archive_CloseDefFiles) \
  X(OTF2_Archive_CloseDefWriter) \
  X(OTF2_Archive_CloseEvtFiles) \
  X(OTF2_Archive_CloseEvtWriter) \
  X(OTF2_Archive_GetDefWriter) \
  X(OTF2_Archive_GetEvtWriter) \
  X(OTF2_Archive_GetGlobalDefWriter) \
  X(OTF2_Archive_Open) \
  X(OTF2_Archive_OpenDefFiles) \
  X(OTF2_Archive_OpenEvtFiles) \
  X(OTF2_Archive_SetCreator) \
  X(OTF2_Archive_SetFlushCallbacks) \
  X(OTF2_Archive_SetProperty) \
  X(OTF2_Archive_SetSerialCollectiveCallbacks) \
  X(OTF2_AttributeList_AddLocationRef) \
  X(OTF2_AttributeList_AddUint64) \
  X(OTF2_AttributeList_Delete) \
  X(OTF2_AttributeList_New) \
  X(OTF2_AttributeList_RemoveAllAttributes) \
  X(OTF2_DefWriter_WriteMappingTable) \
  X(OTF2_Error_GetDescription) \
  X(OTF2_Error_RegisterCallback) \
  X(OTF2_EvtWriter_Enter) \
  X(OTF2_EvtWriter_GetNumberOfEvents) \
  X(OTF2_EvtWriter_Leave) \
  X(OTF2_EvtWriter_Metric) \
  X(OTF2_EvtWriter_MpiCollectiveBegin) \
  X(OTF2_EvtWriter_MpiCollectiveEnd) \
  X(OTF2_EvtWriter_MpiIrecv) \
  X(OTF2_EvtWriter_MpiIrecvRequest) \
  X(OTF2_EvtWriter_MpiIsend) \
  X(OTF2_EvtWriter_MpiIsendComplete) \
  X(OTF2_EvtWriter_MpiRecv) \
  X(OTF2_EvtWriter_MpiSend) \
  X(OTF2_EvtWriter_NonBlockingCollectiveComplete) \
  X(OTF2_EvtWriter_NonBlockingCollectiveRequest) \
  X(OTF2_EvtWriter_RmaCollectiveBegin) \
  X(OTF2_EvtWriter_RmaCollectiveEnd) \
  X(OTF2_EvtWriter_RmaGet) \
  X(OTF2_EvtWriter_RmaOpCompleteBlocking) \
  X(OTF2_EvtWriter_RmaOpCompleteNonBlocking) \
  X(OTF2_EvtWriter_RmaPut) \
  X(OTF2_EvtWriter_RmaReleaseLock) \
  X(OTF2_EvtWriter_RmaRequestLock) \
  X(OTF2_EvtWriter_RmaSync) \
  X(OTF2_EvtWriter_RmaWinCreate) \
  X(OTF2_EvtWriter_RmaWinDestroy) \
  X(OTF2_GlobalDefReaderCallbacks_Delete) \
  X(OTF2_GlobalDefReaderCallbacks_New) \
  X(OTF2_GlobalDefReaderCallbacks_SetAttributeCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetCommCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetGroupCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetLocationCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetRegionCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetStringCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback) \
  X(OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback) \
  X(OTF2_GlobalDefWriter_WriteAttribute) \
  X(OTF2_GlobalDefWriter_WriteClockProperties) \
  X(OTF2_GlobalDefWriter_WriteComm) \
  X(OTF2_GlobalDefWriter_WriteGroup) \
  X(OTF2_GlobalDefWriter_WriteLocation) \
  X(OTF2_GlobalDefWriter_WriteLocationGroup) \
  X(OTF2_GlobalDefWriter_WriteMetricClass) \
  X(OTF2_GlobalDefWriter_WriteMetricInstance) \
  X(OTF2_GlobalDefWriter_WriteMetricMember) \
  X(OTF2_GlobalDefWriter_WriteParadigm) \
  X(OTF2_GlobalDefWriter_WriteRegion) \
  X(OTF2_GlobalDefWriter_WriteRmaWin) \
  X(OTF2_GlobalDefWriter_WriteString) \
  X(OTF2_GlobalDefWriter_WriteSystemTreeNode) \
  X(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain) \
  X(OTF2_IdMap_CreateFromUint64Array) \
  X(OTF2_IdMap_Free) \
  X(OTF2_Reader_Close) \
  X(OTF2_Reader_GetGlobalDefReader) \
  X(OTF2_Reader_GetProperty) \
  X(OTF2_Reader_Open) \
  X(OTF2_Reader_ReadAllGlobalDefinitions) \
  X(OTF2_Reader_RegisterGlobalDefCallbacks) \
  X(OTF2_Reader_SetSerialCollectiveCallbacks)

struct otf2_library {
#define OTF2_LIBRARY_ENTRY(name) __typeof__(name) *name;
  OTF2_LIBRARY_FUNCTIONS(OTF2_LIBRARY_ENTRY)
#undef OTF2_LIBRARY_ENTRY
};

extern struct otf2_library otf2_library;

/* Loads libotf2 and resolves the table, once (later calls return the first answer):
 * 0, or -1 with a cause in d (`Cannot write the OTF2 archive: libopen-trace-format2.so.10:
 * cannot open shared object file: ... (install the Debian package ...)`). */
int otf2_library_load(struct diag *d);
/* The soname it loads ("libopen-trace-format2.so.10"). */
const char *otf2_library_soname(void);

#ifndef OTF2_LIBRARY_LOADER
#define OTF2_Archive_Close otf2_library.OTF2_Archive_Close
#define OTF2_Archive_CloseDefFiles otf2_library.OTF2_Archive_CloseDefFiles
#define OTF2_Archive_CloseDefWriter otf2_library.OTF2_Archive_CloseDefWriter
#define OTF2_Archive_CloseEvtFiles otf2_library.OTF2_Archive_CloseEvtFiles
#define OTF2_Archive_CloseEvtWriter otf2_library.OTF2_Archive_CloseEvtWriter
#define OTF2_Archive_GetDefWriter otf2_library.OTF2_Archive_GetDefWriter
#define OTF2_Archive_GetEvtWriter otf2_library.OTF2_Archive_GetEvtWriter
#define OTF2_Archive_GetGlobalDefWriter otf2_library.OTF2_Archive_GetGlobalDefWriter
#define OTF2_Archive_Open otf2_library.OTF2_Archive_Open
#define OTF2_Archive_OpenDefFiles otf2_library.OTF2_Archive_OpenDefFiles
#define OTF2_Archive_OpenEvtFiles otf2_library.OTF2_Archive_OpenEvtFiles
#define OTF2_Archive_SetCreator otf2_library.OTF2_Archive_SetCreator
#define OTF2_Archive_SetFlushCallbacks otf2_library.OTF2_Archive_SetFlushCallbacks
#define OTF2_Archive_SetProperty otf2_library.OTF2_Archive_SetProperty
#define OTF2_Archive_SetSerialCollectiveCallbacks otf2_library.OTF2_Archive_SetSerialCollectiveCallbacks
#define OTF2_AttributeList_AddLocationRef otf2_library.OTF2_AttributeList_AddLocationRef
#define OTF2_AttributeList_AddUint64 otf2_library.OTF2_AttributeList_AddUint64
#define OTF2_AttributeList_Delete otf2_library.OTF2_AttributeList_Delete
#define OTF2_AttributeList_New otf2_library.OTF2_AttributeList_New
#define OTF2_AttributeList_RemoveAllAttributes otf2_library.OTF2_AttributeList_RemoveAllAttributes
#define OTF2_DefWriter_WriteMappingTable otf2_library.OTF2_DefWriter_WriteMappingTable
#define OTF2_Error_GetDescription otf2_library.OTF2_Error_GetDescription
#define OTF2_Error_RegisterCallback otf2_library.OTF2_Error_RegisterCallback
#define OTF2_EvtWriter_Enter otf2_library.OTF2_EvtWriter_Enter
#define OTF2_EvtWriter_GetNumberOfEvents otf2_library.OTF2_EvtWriter_GetNumberOfEvents
#define OTF2_EvtWriter_Leave otf2_library.OTF2_EvtWriter_Leave
#define OTF2_EvtWriter_Metric otf2_library.OTF2_EvtWriter_Metric
#define OTF2_EvtWriter_MpiCollectiveBegin otf2_library.OTF2_EvtWriter_MpiCollectiveBegin
#define OTF2_EvtWriter_MpiCollectiveEnd otf2_library.OTF2_EvtWriter_MpiCollectiveEnd
#define OTF2_EvtWriter_MpiIrecv otf2_library.OTF2_EvtWriter_MpiIrecv
#define OTF2_EvtWriter_MpiIrecvRequest otf2_library.OTF2_EvtWriter_MpiIrecvRequest
#define OTF2_EvtWriter_MpiIsend otf2_library.OTF2_EvtWriter_MpiIsend
#define OTF2_EvtWriter_MpiIsendComplete otf2_library.OTF2_EvtWriter_MpiIsendComplete
#define OTF2_EvtWriter_MpiRecv otf2_library.OTF2_EvtWriter_MpiRecv
#define OTF2_EvtWriter_MpiSend otf2_library.OTF2_EvtWriter_MpiSend
#define OTF2_EvtWriter_NonBlockingCollectiveComplete otf2_library.OTF2_EvtWriter_NonBlockingCollectiveComplete
#define OTF2_EvtWriter_NonBlockingCollectiveRequest otf2_library.OTF2_EvtWriter_NonBlockingCollectiveRequest
#define OTF2_EvtWriter_RmaCollectiveBegin otf2_library.OTF2_EvtWriter_RmaCollectiveBegin
#define OTF2_EvtWriter_RmaCollectiveEnd otf2_library.OTF2_EvtWriter_RmaCollectiveEnd
#define OTF2_EvtWriter_RmaGet otf2_library.OTF2_EvtWriter_RmaGet
#define OTF2_EvtWriter_RmaOpCompleteBlocking otf2_library.OTF2_EvtWriter_RmaOpCompleteBlocking
#define OTF2_EvtWriter_RmaOpCompleteNonBlocking otf2_library.OTF2_EvtWriter_RmaOpCompleteNonBlocking
#define OTF2_EvtWriter_RmaPut otf2_library.OTF2_EvtWriter_RmaPut
#define OTF2_EvtWriter_RmaReleaseLock otf2_library.OTF2_EvtWriter_RmaReleaseLock
#define OTF2_EvtWriter_RmaRequestLock otf2_library.OTF2_EvtWriter_RmaRequestLock
#define OTF2_EvtWriter_RmaSync otf2_library.OTF2_EvtWriter_RmaSync
#define OTF2_EvtWriter_RmaWinCreate otf2_library.OTF2_EvtWriter_RmaWinCreate
#define OTF2_EvtWriter_RmaWinDestroy otf2_library.OTF2_EvtWriter_RmaWinDestroy
#define OTF2_GlobalDefReaderCallbacks_Delete otf2_library.OTF2_GlobalDefReaderCallbacks_Delete
#define OTF2_GlobalDefReaderCallbacks_New otf2_library.OTF2_GlobalDefReaderCallbacks_New
#define OTF2_GlobalDefReaderCallbacks_SetAttributeCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetAttributeCallback
#define OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback
#define OTF2_GlobalDefReaderCallbacks_SetCommCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetCommCallback
#define OTF2_GlobalDefReaderCallbacks_SetGroupCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetGroupCallback
#define OTF2_GlobalDefReaderCallbacks_SetLocationCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetLocationCallback
#define OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback
#define OTF2_GlobalDefReaderCallbacks_SetRegionCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetRegionCallback
#define OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback
#define OTF2_GlobalDefReaderCallbacks_SetStringCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetStringCallback
#define OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback
#define OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback otf2_library.OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback
#define OTF2_GlobalDefWriter_WriteAttribute otf2_library.OTF2_GlobalDefWriter_WriteAttribute
#define OTF2_GlobalDefWriter_WriteClockProperties otf2_library.OTF2_GlobalDefWriter_WriteClockProperties
#define OTF2_GlobalDefWriter_WriteComm otf2_library.OTF2_GlobalDefWriter_WriteComm
#define OTF2_GlobalDefWriter_WriteGroup otf2_library.OTF2_GlobalDefWriter_WriteGroup
#define OTF2_GlobalDefWriter_WriteLocation otf2_library.OTF2_GlobalDefWriter_WriteLocation
#define OTF2_GlobalDefWriter_WriteLocationGroup otf2_library.OTF2_GlobalDefWriter_WriteLocationGroup
#define OTF2_GlobalDefWriter_WriteMetricClass otf2_library.OTF2_GlobalDefWriter_WriteMetricClass
#define OTF2_GlobalDefWriter_WriteMetricInstance otf2_library.OTF2_GlobalDefWriter_WriteMetricInstance
#define OTF2_GlobalDefWriter_WriteMetricMember otf2_library.OTF2_GlobalDefWriter_WriteMetricMember
#define OTF2_GlobalDefWriter_WriteParadigm otf2_library.OTF2_GlobalDefWriter_WriteParadigm
#define OTF2_GlobalDefWriter_WriteRegion otf2_library.OTF2_GlobalDefWriter_WriteRegion
#define OTF2_GlobalDefWriter_WriteRmaWin otf2_library.OTF2_GlobalDefWriter_WriteRmaWin
#define OTF2_GlobalDefWriter_WriteString otf2_library.OTF2_GlobalDefWriter_WriteString
#define OTF2_GlobalDefWriter_WriteSystemTreeNode otf2_library.OTF2_GlobalDefWriter_WriteSystemTreeNode
#define OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain otf2_library.OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain
#define OTF2_IdMap_CreateFromUint64Array otf2_library.OTF2_IdMap_CreateFromUint64Array
#define OTF2_IdMap_Free otf2_library.OTF2_IdMap_Free
#define OTF2_Reader_Close otf2_library.OTF2_Reader_Close
#define OTF2_Reader_GetGlobalDefReader otf2_library.OTF2_Reader_GetGlobalDefReader
#define OTF2_Reader_GetProperty otf2_library.OTF2_Reader_GetProperty
#define OTF2_Reader_Open otf2_library.OTF2_Reader_Open
#define OTF2_Reader_ReadAllGlobalDefinitions otf2_library.OTF2_Reader_ReadAllGlobalDefinitions
#define OTF2_Reader_RegisterGlobalDefCallbacks otf2_library.OTF2_Reader_RegisterGlobalDefCallbacks
#define OTF2_Reader_SetSerialCollectiveCallbacks otf2_library.OTF2_Reader_SetSerialCollectiveCallbacks
#endif

#endif
