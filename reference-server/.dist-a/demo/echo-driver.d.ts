export interface EchoDriverOptions {
    baseUrl: string;
    token: string;
    name: string;
    log?: (line: string) => void;
}
export declare function startEchoDriver({ baseUrl, token, name, log }: EchoDriverOptions): {
    stop(): Promise<void>;
};
