export * from "./redis";
export * from "./api";
export * from "./events";
