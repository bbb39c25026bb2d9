export interface AnswerSeen {
    method: string;
    path: string;
    status: number;
}
export interface InterposedProxy {
    url: string;
    close(): Promise<void>;
}
export declare function interposeProxy(target: string, onAnswer: (answer: AnswerSeen) => void): Promise<InterposedProxy>;
