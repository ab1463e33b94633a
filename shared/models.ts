// The model catalog (resources/models.json): specs and published roots from PROTOCOL section 2.

export interface MinerModelSpec {
  id: string;
  displayName: string;
  checkpoint: string;
  openToMiners: true;
  limits: { maxInputTokens: number; maxOutputTokens: number; maxRequestS: number };
  toploc: { k: number; v: number; p: number; decodeBatchingSize: number };
  serveContextLength: number;
  modelRoot: string;
  lmRoot: string;
  config: { arch: string; n_layers: number; hidden: number; d_ff: number; n_experts: number; top_k: number; vocab: number };
  memory: {
    weightsGiB: number;
    kvBytesPerTokenTp1: number;
    kvBytesPerTokenPerCardTpN: number;
    stateMiBPerRequestTp1: number;
    minComputeCap: string;
    /** Size of the checkpoint's files (PROTOCOL: about 35 GB of FP8 weights), shown until a listing gives the exact total. */
    downloadGB: number;
    /** Free space asked for before a first download: the files plus room for the serve's image, caches and logs. */
    minDiskGiB: number;
    minDriver: string;
  };
  targets: { ttftP99Ms: number | null; tpotP99Ms: number | null; source: string };
}

export interface ComingLaterModel {
  id: string;
  displayName: string;
  checkpoint: null;
  openToMiners: false;
  comingLater: string;
  modelRoot: string;
}

export type ModelEntry = MinerModelSpec | ComingLaterModel;

export interface ModelCatalog {
  version: number;
  models: ModelEntry[];
}
