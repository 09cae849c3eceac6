export declare function chromiumPath(): string | undefined;
export declare const chromiumArgs: string[];
export declare function launchOptions(): { executablePath?: string; args: string[] };
export declare function partitionedLaunchOptions(): { executablePath?: string; args: string[]; ignoreDefaultArgs?: string[] };
